"""What a run left undone, as the harness counts it before the merge request.

Why: a run whose issue was set aside, or whose spec section no closed issue covers,
must not be reported ``complete``. These are harness facts (the tracker's issue
states, the ``needs-human`` label, the spec's own headings and the issue-to-section
map a person approved at spec_to_issues), never the model's word.
"""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class SpecCoverage(StrictModel):
    """The spec's sections and issues left undone, computed before the merge request."""

    sections: list[str] = Field(default_factory=list)
    """Every section of the spec, in order (:mod:`agent.core.words.spec_sections`)."""
    uncovered: list[str] = Field(default_factory=list)
    """Sections no closed issue covers."""
    set_aside: list[int] = Field(default_factory=list)
    """Issues left for a person (open, labelled ``needs-human``)."""
    left_open: list[int] = Field(default_factory=list)
    """Other issues still open (a person chose to go on to the merge request)."""

    @property
    def has_gaps(self) -> bool:
        return bool(self.uncovered or self.set_aside or self.left_open)


def gaps_line(coverage: SpecCoverage | None, set_aside: list[int]) -> str:
    """``#3 set aside; 1 section uncovered: Feature 3: truncate``; empty without gaps.

    ``set_aside`` (the agent state's) counts when no coverage was computed (a state
    from before it). Section names are the spec's: the caller escapes them.
    """
    aside = coverage.set_aside if coverage is not None else set_aside
    parts: list[str] = []
    if aside:
        parts.append(f"{_iids(aside)} set aside")
    if coverage is not None and coverage.left_open:
        parts.append(f"{_iids(coverage.left_open)} left open")
    if coverage is not None and coverage.uncovered:
        count = len(coverage.uncovered)
        noun = "section" if count == 1 else "sections"
        parts.append(f"{count} {noun} uncovered: {', '.join(coverage.uncovered)}")
    return "; ".join(parts)


def _iids(iids: list[int]) -> str:
    return ", ".join(f"#{iid}" for iid in iids)

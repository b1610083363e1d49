"""What a run leaves undone before its merge request: a harness fact, stored in the state.

Why: the exit state, the merge request's first lines and the mr_phase_transition
checkpoint must say when the spec is not whole. Everything here comes from the
harness's own records: the spec copy's headings, the tracker's issue states and its
``needs-human`` label, and each issue's sections as a person approved them at
spec_to_issues (``AgentState.spec_drafts``). The model's summaries count for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent.core.words import spec_sections
from common.inert_markdown import quoted
from common.schemas.coverage import SpecCoverage
from common.schemas.issues import IssueDraft, TrackedIssue


def measure(
    spec_text: str,
    issues: list[TrackedIssue],
    drafts: Mapping[int, IssueDraft],
    aside_label: str,
) -> SpecCoverage:
    """The spec's sections no closed issue covers, and the issues set aside or left open.

    Args:
        spec_text: the spec as the agent copied it at its start.
        issues: every issue of the milestone, as the tracker holds it now.
        drafts: each issue's approved spec-faithful draft, by iid (its sections).
        aside_label: the label of an issue left for a person.
    """
    sections = [section.id for section in spec_sections.parse(spec_text)]
    closed = [issue.iid for issue in issues if issue.state == "closed"]
    covering = (drafts[iid].spec_sections for iid in closed if iid in drafts)
    still_open = [issue for issue in issues if issue.state != "closed"]
    return SpecCoverage(
        sections=sections,
        uncovered=spec_sections.uncovered(sections, covering),
        set_aside=[issue.iid for issue in still_open if aside_label in issue.labels],
        left_open=[issue.iid for issue in still_open if aside_label not in issue.labels],
    )


def gaps_lines(coverage: SpecCoverage) -> list[str]:
    """The lines the merge request's description starts with when the run left work undone
    (none without gaps); written by the harness, before any of the model's words."""
    if not coverage.has_gaps:
        return []
    lines = ["**Partial: this merge request does not implement the whole spec.**"]
    if coverage.set_aside:
        shown = ", ".join(f"#{iid}" for iid in coverage.set_aside)
        lines.append(f"- Set aside for a person (`needs-human`): {shown}")
    if coverage.left_open:
        lines.append(f"- Left open: {', '.join(f'#{iid}' for iid in coverage.left_open)}")
    if coverage.uncovered:
        shown = ", ".join(quoted(name) for name in coverage.uncovered)
        lines.append(f"- Spec sections no closed issue covers: {shown}")
    return lines

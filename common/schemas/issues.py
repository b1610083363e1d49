"""Issues as the model proposes them and as the tracker keeps them."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now

SET_ASIDE_LABEL = "needs-human"
"""The label of an issue left for a person: the label decides (a person who removes it
gives the issue another chance)."""


class IssueDraft(StrictModel):
    """A spec-faithful issue, before the tracker numbers it.

    Each optional section is present only where the spec provides it.
    """

    title: str = Field(min_length=1, max_length=255)
    summary: str = Field(min_length=1)
    requirement_details: list[str] = Field(default_factory=list)
    technical_notes: list[str] = Field(default_factory=list)
    user_facing_behavior: list[str] = Field(default_factory=list)
    test_criteria: list[str] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    spec_sections: list[str] = Field(default_factory=list)
    """The spec's sections this issue implements, by the names the harness gave them;
    the harness refuses unknown names and counts coverage from a person's approval."""
    depends_on: list[int] = Field(default_factory=list)
    """1-based positions, in the same proposal, of the issues this one needs closed before
    it starts; the harness refuses an unknown position, itself and a cycle, and a person
    may change them at spec_to_issues."""

    def description(self) -> str:
        """The issue body in the spec-faithful template, omitting empty sections."""
        parts = [f"## Summary\n{self.summary}"]
        sections = (
            ("Requirement Details", self.requirement_details),
            ("Technical Notes", self.technical_notes),
            ("User-Facing Behavior", self.user_facing_behavior),
            ("Test Criteria", self.test_criteria),
            ("Open Questions", self.open_questions),
        )
        for heading, items in sections:
            if items:
                bullets = "\n".join(f"- {item}" for item in items)
                parts.append(f"## {heading}\n{bullets}")
        return "\n\n".join(parts)


class IssueNote(StrictModel):
    """A comment on an issue: research, dependencies, or a session handoff."""

    kind: Literal["research", "dependencies", "handoff", "closure", "comment", "spec", "decision"]
    body: str
    created_at: datetime = Field(default_factory=utc_now)


class TrackedIssue(StrictModel):
    """An issue as the tracker holds it."""

    iid: int = Field(ge=1)
    title: str
    description: str
    state: Literal["opened", "closed"] = "opened"
    labels: list[str] = Field(default_factory=list)
    notes: list[IssueNote] = Field(default_factory=list)
    created_at: datetime = Field(default_factory=utc_now)
    closed_at: datetime | None = None
    spec_title: str | None = None
    """The title approved at spec_to_issues, kept when enrichment rewrites ``title``
    (``None``: an issue from before this record, or not the harness's)."""
    spec_description: str | None = None
    """The spec-faithful description approved at spec_to_issues, kept the same way."""
    depends_on: list[int] = Field(default_factory=list)
    """The iids this issue needs closed before it starts, as approved at spec_to_issues
    (the harness's record: on GitLab also issue links and a "Depends on" line)."""


class MergeRequestRecord(StrictModel):
    """A merge request: in GitLab, or the local record file-only mode keeps."""

    iid: int = Field(ge=1)
    title: str
    description: str
    source_branch: str
    target_branch: str
    state: Literal["opened", "merged", "closed"] = "opened"
    web_url: str | None = None
    created_at: datetime = Field(default_factory=utc_now)

"""Issues as the model proposes them and as the tracker keeps them."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now

SET_ASIDE_LABEL = "needs-human"
"""The label of an issue left for a person: the label decides (a person who removes it
gives the issue another chance)."""


TITLE_CHARS = 255
"""Most characters of an issue or merge request title (GitLab's own limit)."""
SUMMARY_CHARS = 4_000
"""Most characters of a proposed issue's summary: a spec-faithful summary is a few
sentences (the demo's are under 200 characters); the details go in the lists."""
ITEM_CHARS = 1_000
"""Most characters of one list item (a requirement, a test criterion, a note): one
statement, a few lines at most."""
LIST_ITEMS = 30
"""Most items in one of a proposed issue's lists: an issue with more requirements or
test criteria than that is several issues."""
SECTION_NAME_CHARS = 300
"""Most characters of a spec section's name (a heading of the spec)."""
SECTIONS_PER_ISSUE = 50
"""Most spec sections one issue names (the harness refuses a name the spec lacks anyway)."""
ISSUES_PER_PROPOSAL = 50
"""Most issues in one proposal: a spec that breaks into more is several runs; each issue
is a session or more, and a person reads every one at spec_to_issues."""

Item = Annotated[str, Field(max_length=ITEM_CHARS)]
"""One list item of the model's, bounded."""


class IssueDraft(StrictModel):
    """A spec-faithful issue, before the tracker numbers it.

    Each optional section is present only where the spec provides it.
    """

    title: str = Field(min_length=1, max_length=TITLE_CHARS)
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


class ProposedIssue(IssueDraft):
    """An issue as ``propose_issues`` takes it from the model: an :class:`IssueDraft`
    whose every field has a maximum.

    Why apart from :class:`IssueDraft`: the model's proposal is hostile input (a 900 KB
    proposal of hundreds of issues would reach the tracker under auto-accept), while
    drafts the harness makes itself (a regression's bug issue naming every failing test)
    or already keeps in a state must stay valid. The maxima are far above what an honest
    model writes (a real model's whole answer is a few tens of thousands of tokens), and
    the tool names the field and its maximum when one is passed, so the model can mend it.
    """

    title: str = Field(min_length=1, max_length=TITLE_CHARS)
    summary: str = Field(min_length=1, max_length=SUMMARY_CHARS)
    requirement_details: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS)
    technical_notes: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS)
    user_facing_behavior: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS)
    test_criteria: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS)
    open_questions: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS)
    spec_sections: list[Annotated[str, Field(max_length=SECTION_NAME_CHARS)]] = Field(
        default_factory=list, max_length=SECTIONS_PER_ISSUE
    )
    depends_on: list[int] = Field(default_factory=list, max_length=ISSUES_PER_PROPOSAL)

    def draft(self) -> IssueDraft:
        """The same issue as the harness keeps it (the plain :class:`IssueDraft`)."""
        return IssueDraft.model_validate(self.model_dump())


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

"""The interface every issue tracker implements.

The orchestrator talks only to this protocol; creation calls are idempotent
(a retry after a lost answer finds what was created instead of duplicating it).
"""

from __future__ import annotations

from typing import Literal, Protocol

from common.schemas.decision_record import DecisionRecord
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue

NoteKind = Literal["research", "dependencies", "handoff", "closure", "comment", "spec", "decision"]


class IssueTracker(Protocol):
    """Milestone, issues, notes, labels and the merge request of one spec."""

    kind: Literal["file", "gitlab"]

    async def verify(self) -> list[str]:
        """Check access before anything is created; return warnings, raise TrackerError."""
        ...

    async def ensure_milestone(self, title: str, description: str) -> None:
        """Create the spec's milestone unless it exists."""
        ...

    async def create_issues(self, drafts: list[IssueDraft]) -> list[TrackedIssue]:
        """Create the issues in order; ones that already exist (same title) are returned.

        Each draft's ``depends_on`` (positions in ``drafts``) is kept as the created
        issues' iids (:func:`with_dependencies`).
        """
        ...

    async def list_issues(self) -> list[TrackedIssue]:
        """Every issue of the milestone, by iid."""
        ...

    async def get_issue(self, iid: int) -> TrackedIssue:
        """One issue; TrackerError when it does not exist."""
        ...

    async def update_issue(
        self,
        iid: int,
        *,
        title: str | None = None,
        description: str | None = None,
        add_labels: tuple[str, ...] = (),
        remove_labels: tuple[str, ...] = (),
    ) -> TrackedIssue:
        """Change title, description or labels."""
        ...

    async def add_note(self, iid: int, kind: NoteKind, body: str) -> IssueNote:
        """Comment on an issue."""
        ...

    async def close_issue(self, iid: int) -> TrackedIssue:
        """Close an issue (closing a closed one is a no-op)."""
        ...

    async def create_merge_request(
        self, title: str, description: str, source_branch: str, target_branch: str
    ) -> MergeRequestRecord:
        """Create the merge request, or return the open one for ``source_branch``."""
        ...

    async def find_merge_request(self, source_branch: str) -> MergeRequestRecord | None:
        """The open merge request for ``source_branch``, if any."""
        ...

    async def record_decision(self, record: DecisionRecord) -> str | None:
        """Write a checkpoint decision where the work is, once per checkpoint id (a repeat
        after a kill finds the first); where it went (``issue #3``, ``milestone``), or
        ``None`` when there is no place for it yet (no milestone: it is written later)."""
        ...


def with_dependencies(created: list[TrackedIssue], drafts: list[IssueDraft]) -> list[TrackedIssue]:
    """``created`` (in the order of ``drafts``) with each draft's ``depends_on`` positions
    as the iids the tracker gave those issues."""
    return [
        issue.model_copy(
            update={"depends_on": sorted(created[p - 1].iid for p in draft.depends_on)}
        )
        for issue, draft in zip(created, drafts, strict=True)
    ]

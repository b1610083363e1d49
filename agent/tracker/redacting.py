"""A tracker that redacts every text it sends: issue bodies, notes, the merge request.

It wraps the real tracker and passes everything else through (``push_branch`` and
the GitLab tracker's extras too, so ``isinstance(tracker, BranchPublisher)`` still
tells the truth).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from agent.tracker.base import IssueTracker, NoteKind
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue


class RedactingTracker:
    """:class:`IssueTracker` around ``inner``, with ``clean`` applied to outgoing text."""

    def __init__(self, inner: IssueTracker, clean: Callable[[str], str]) -> None:
        self._inner = inner
        self._clean = clean
        self.kind: Literal["file", "gitlab"] = inner.kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def verify(self) -> list[str]:
        return await self._inner.verify()

    async def ensure_milestone(self, title: str, description: str) -> None:
        await self._inner.ensure_milestone(title, self._clean(description))

    async def create_issues(self, drafts: list[IssueDraft]) -> list[TrackedIssue]:
        cleaned = [IssueDraft.model_validate(self._walk(draft.model_dump())) for draft in drafts]
        return await self._inner.create_issues(cleaned)

    async def list_issues(self) -> list[TrackedIssue]:
        return await self._inner.list_issues()

    async def get_issue(self, iid: int) -> TrackedIssue:
        return await self._inner.get_issue(iid)

    async def update_issue(
        self,
        iid: int,
        *,
        title: str | None = None,
        description: str | None = None,
        add_labels: tuple[str, ...] = (),
        remove_labels: tuple[str, ...] = (),
    ) -> TrackedIssue:
        return await self._inner.update_issue(
            iid,
            title=None if title is None else self._clean(title),
            description=None if description is None else self._clean(description),
            add_labels=add_labels,
            remove_labels=remove_labels,
        )

    async def add_note(self, iid: int, kind: NoteKind, body: str) -> IssueNote:
        return await self._inner.add_note(iid, kind, self._clean(body))

    async def close_issue(self, iid: int) -> TrackedIssue:
        return await self._inner.close_issue(iid)

    async def create_merge_request(
        self, title: str, description: str, source_branch: str, target_branch: str
    ) -> MergeRequestRecord:
        return await self._inner.create_merge_request(
            self._clean(title), self._clean(description), source_branch, target_branch
        )

    async def find_merge_request(self, source_branch: str) -> MergeRequestRecord | None:
        return await self._inner.find_merge_request(source_branch)

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self._clean(value)
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        if isinstance(value, dict):
            return {key: self._walk(item) for key, item in value.items()}
        return value

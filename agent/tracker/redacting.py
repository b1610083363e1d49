"""A tracker that redacts and escapes every text it sends: issues, notes, the merge request.

Much of that text is the model's (issue titles and descriptions, handoffs, its summary,
the merge request). A person reads it on GitLab, in the file tracker's files and in a
terminal, so after the secrets are out every control, bidi and invisible character is
shown escaped (:mod:`common.untrusted_text`), and titles stay on one line. The one
place every tracker write passes through.

It wraps the real tracker and passes everything else through (``push_branch`` and
the GitLab tracker's extras too, so ``isinstance(tracker, BranchPublisher)`` still
tells the truth).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from agent.tracker.base import IssueTracker, NoteKind
from common.schemas.decision_record import DecisionRecord
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue
from common.untrusted_text import printable, printable_line


class RedactingTracker:
    """:class:`IssueTracker` around ``inner``: outgoing text through ``clean``, then escaped."""

    def __init__(self, inner: IssueTracker, clean: Callable[[str], str]) -> None:
        self._inner = inner
        self._clean = clean
        self.kind: Literal["file", "gitlab"] = inner.kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def verify(self) -> list[str]:
        return await self._inner.verify()

    async def ensure_milestone(self, title: str, description: str) -> None:
        await self._inner.ensure_milestone(self._line(title), self._text(description))

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
            title=None if title is None else self._line(title),
            description=None if description is None else self._text(description),
            add_labels=add_labels,
            remove_labels=remove_labels,
        )

    async def add_note(self, iid: int, kind: NoteKind, body: str) -> IssueNote:
        return await self._inner.add_note(iid, kind, self._text(body))

    async def close_issue(self, iid: int) -> TrackedIssue:
        return await self._inner.close_issue(iid)

    async def create_merge_request(
        self, title: str, description: str, source_branch: str, target_branch: str
    ) -> MergeRequestRecord:
        return await self._inner.create_merge_request(
            self._line(title), self._text(description), source_branch, target_branch
        )

    async def find_merge_request(self, source_branch: str) -> MergeRequestRecord | None:
        return await self._inner.find_merge_request(source_branch)

    async def record_decision(self, record: DecisionRecord) -> str | None:
        """The record with its words (the choice names files, the reason is a person's)
        through ``clean`` and escaped on one line each."""
        return await self._inner.record_decision(
            record.model_copy(
                update={
                    "choice": self._line(record.choice),
                    "decided_by": self._line(record.decided_by),
                    "rule": None if record.rule is None else self._line(record.rule),
                    "reason": None if record.reason is None else self._line(record.reason),
                }
            )
        )

    def _text(self, text: str) -> str:
        """Secrets out, then every unsafe character escaped (lines kept)."""
        return printable(self._clean(text))

    def _line(self, text: str) -> str:
        """A title: secrets out, escaped, on one line."""
        return printable_line(self._clean(text))

    def _walk(self, value: Any, key: object = None) -> Any:
        if isinstance(value, str):
            return self._line(value) if key == "title" else self._text(value)
        if isinstance(value, list):
            return [self._walk(item) for item in value]
        if isinstance(value, dict):
            return {name: self._walk(item, name) for name, item in value.items()}
        return value

"""File-only mode: the milestone, its issues and the MR record in ``.file_milestone.json``.

Every change is a read-modify-write of the whole file, written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from agent.tracker.base import NoteKind, with_dependencies
from common.atomic import read_model, read_model_or_none, write_model
from common.errors import TrackerError
from common.schemas.base import utc_now
from common.schemas.decision_record import DecisionRecord
from common.schemas.issues import IssueDraft, IssueNote, MergeRequestRecord, TrackedIssue
from common.schemas.milestone import FileMilestone


class FileTracker:
    """An :class:`~agent.tracker.base.IssueTracker` over one JSON file."""

    kind: Literal["file", "gitlab"] = "file"

    def __init__(self, path: Path) -> None:
        self.path = path

    async def verify(self) -> list[str]:
        if self.path.exists():
            read_model(self.path, FileMilestone)  # a corrupt file is reported, never reset
        return []

    async def ensure_milestone(self, title: str, description: str) -> None:
        if read_model_or_none(self.path, FileMilestone) is None:
            write_model(self.path, FileMilestone(title=title, description=description))

    async def create_issues(self, drafts: list[IssueDraft]) -> list[TrackedIssue]:
        milestone = self._load()
        by_title = {issue.title: issue for issue in milestone.issues}
        by_title |= {i.spec_title: i for i in milestone.issues if i.spec_title is not None}
        result: list[TrackedIssue] = []
        issues = list(milestone.issues)
        for draft in drafts:
            existing = by_title.get(draft.title)
            if existing is None:
                existing = TrackedIssue(
                    iid=len(issues) + 1,
                    title=draft.title,
                    description=draft.description(),
                    spec_title=draft.title,
                    spec_description=draft.description(),
                )
                issues.append(existing)
                by_title[draft.title] = existing
            result.append(existing)
        result = with_dependencies(result, drafts)
        kept = {issue.iid: issue for issue in result}
        issues = [kept.get(issue.iid, issue) for issue in issues]
        self._save(milestone.model_copy(update={"issues": issues}))
        return result

    async def list_issues(self) -> list[TrackedIssue]:
        return sorted(self._load().issues, key=lambda issue: issue.iid)

    async def get_issue(self, iid: int) -> TrackedIssue:
        for issue in self._load().issues:
            if issue.iid == iid:
                return issue
        raise TrackerError(f"issue #{iid} does not exist in {self.path}")

    async def update_issue(
        self,
        iid: int,
        *,
        title: str | None = None,
        description: str | None = None,
        add_labels: tuple[str, ...] = (),
        remove_labels: tuple[str, ...] = (),
    ) -> TrackedIssue:
        issue = await self.get_issue(iid)
        labels = [label for label in issue.labels if label not in remove_labels]
        labels += [label for label in add_labels if label not in labels]
        updated = issue.model_copy(
            update={
                "title": title if title is not None else issue.title,
                "description": description if description is not None else issue.description,
                "labels": labels,
            }
        )
        return self._replace(updated)

    async def add_note(self, iid: int, kind: NoteKind, body: str) -> IssueNote:
        """Note on an issue; the same note (kind and text) on the same issue is made once,
        so a resumed agent that repeats a step does not repeat its note."""
        issue = await self.get_issue(iid)
        for existing in issue.notes:
            if existing.kind == kind and existing.body == body:
                return existing
        note = IssueNote(kind=kind, body=body)
        self._replace(issue.model_copy(update={"notes": [*issue.notes, note]}))
        return note

    async def close_issue(self, iid: int) -> TrackedIssue:
        issue = await self.get_issue(iid)
        if issue.state == "closed":
            return issue
        labels = [label for label in issue.labels if label != "in-progress"]
        return self._replace(
            issue.model_copy(update={"state": "closed", "closed_at": utc_now(), "labels": labels})
        )

    async def create_merge_request(
        self, title: str, description: str, source_branch: str, target_branch: str
    ) -> MergeRequestRecord:
        milestone = self._load()
        existing = milestone.merge_request
        if existing is not None and existing.source_branch == source_branch:
            return existing
        record = MergeRequestRecord(
            iid=1,
            title=title,
            description=description,
            source_branch=source_branch,
            target_branch=target_branch,
        )
        self._save(milestone.model_copy(update={"merge_request": record}))
        return record

    async def find_merge_request(self, source_branch: str) -> MergeRequestRecord | None:
        record = self._load().merge_request
        if record is not None and record.source_branch == source_branch:
            return record
        return None

    async def record_decision(self, record: DecisionRecord) -> str | None:
        """Into the milestone file's ``decisions``, once per checkpoint id (``None``:
        no milestone file yet; the decision is written once there is one)."""
        milestone = read_model_or_none(self.path, FileMilestone)
        if milestone is None:
            return None
        if all(kept.checkpoint_id != record.checkpoint_id for kept in milestone.decisions):
            decisions = [*milestone.decisions, record]
            self._save(milestone.model_copy(update={"decisions": decisions}))
        return "milestone file"

    def _load(self) -> FileMilestone:
        if not self.path.exists():
            raise TrackerError(f"no milestone yet in {self.path}")
        return read_model(self.path, FileMilestone)

    def _save(self, milestone: FileMilestone) -> None:
        write_model(self.path, milestone)

    def _replace(self, issue: TrackedIssue) -> TrackedIssue:
        milestone = self._load()
        issues = [issue if old.iid == issue.iid else old for old in milestone.issues]
        self._save(milestone.model_copy(update={"issues": issues}))
        return issue

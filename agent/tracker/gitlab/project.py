"""The project's endpoints the tracker uses, as blocking calls that return plain dicts.

Each method is one python-gitlab operation (a list follows GitLab's pagination to
the end); the tracker runs them through :class:`~agent.tracker.gitlab.calls.Calls`,
in a worker thread, never directly.
"""

from __future__ import annotations

from typing import Any

from agent.tracker.gitlab.client import Client
from agent.tracker.gitlab.inert_text import inert
from agent.tracker.gitlab.records import Attrs, user_notes
from common.schemas.issues import IssueNote


class ProjectApi:
    """One GitLab project, by numeric id.

    Every description and note it sends goes through :func:`inert` first: this is the
    one place text leaves for GitLab, so no line of it can run as a quick action.
    """

    def __init__(self, client: Client, project_id: int) -> None:
        self.project = client.gl.projects.get(project_id, lazy=True)
        self.project_id = project_id

    def find_milestone(self, title: str) -> Attrs | None:
        for milestone in self.project.milestones.list(title=title, get_all=True):
            if milestone.title == title:
                return _attrs(milestone)
        return None

    def create_milestone(self, title: str, description: str) -> Attrs:
        data = {"title": title, "description": inert(description)}
        return _attrs(self.project.milestones.create(data))

    def milestone(self, milestone_id: int) -> Attrs:
        return _attrs(self.project.milestones.get(milestone_id))

    def update_milestone(self, milestone_id: int, data: Attrs) -> Attrs:
        return dict(self.project.milestones.update(milestone_id, _inert_description(data)))

    def milestone_issues(self, milestone: str) -> list[Attrs]:
        issues = self.project.issues.list(
            milestone=milestone, state="all", get_all=True, order_by="created_at", sort="asc"
        )
        return [_attrs(issue) for issue in issues]

    def issue(self, iid: int) -> Attrs:
        return _attrs(self.project.issues.get(iid))

    def create_issue(self, data: Attrs) -> Attrs:
        return _attrs(self.project.issues.create(_inert_description(data)))

    def update_issue(self, iid: int, data: Attrs) -> Attrs:
        return dict(self.project.issues.update(iid, _inert_description(data)))

    def notes(self, iid: int) -> list[Attrs]:
        notes = self.project.issues.get(iid, lazy=True).notes
        return [
            _attrs(note) for note in notes.list(get_all=True, sort="asc", order_by="created_at")
        ]

    def create_note(self, iid: int, body: str) -> Attrs:
        return _attrs(self.project.issues.get(iid, lazy=True).notes.create({"body": inert(body)}))

    def issue_links(self, iid: int) -> list[Attrs]:
        """The issues linked to ``iid``, each with ``link_type`` as seen from ``iid``."""
        links = self.project.issues.get(iid, lazy=True).links
        return [_attrs(issue) for issue in links.list(get_all=True)]

    def link_blocked_by(self, iid: int, blocker: int) -> Attrs:
        """Link ``iid`` as blocked by ``blocker`` (same project): GitLab's own dependency."""
        data = {
            "target_project_id": self.project_id,
            "target_issue_iid": blocker,
            "link_type": "is_blocked_by",
        }
        source, _ = self.project.issues.get(iid, lazy=True).links.create(data)
        return _attrs(source)

    def open_merge_request(self, source_branch: str) -> Attrs | None:
        found = self.project.mergerequests.list(
            source_branch=source_branch, state="opened", get_all=True
        )
        return _attrs(found[0]) if found else None

    def create_merge_request(self, data: Attrs) -> Attrs:
        return _attrs(self.project.mergerequests.create(_inert_description(data)))

    def merge_request_notes(self, iid: int) -> list[Attrs]:
        notes = self.project.mergerequests.get(iid, lazy=True).notes
        return [
            _attrs(note) for note in notes.list(get_all=True, sort="asc", order_by="created_at")
        ]

    def create_merge_request_note(self, iid: int, body: str) -> Attrs:
        notes = self.project.mergerequests.get(iid, lazy=True).notes
        return _attrs(notes.create({"body": inert(body)}))

    def branch(self, name: str) -> Attrs:
        return _attrs(self.project.branches.get(name))

    # --- the reads of an inventory, one request (and one retry unit) each ---------------

    def all_issues(self) -> list[Attrs]:
        return [_attrs(i) for i in self.project.issues.list(get_all=True, state="all", sort="asc")]

    def user_notes_of(self, iid: int) -> list[IssueNote]:
        issue = self.project.issues.get(iid, lazy=True)
        return user_notes([_attrs(note) for note in issue.notes.list(get_all=True, sort="asc")])

    def all_milestones(self) -> list[Attrs]:
        return [_attrs(m) for m in self.project.milestones.list(get_all=True)]

    def label_names(self) -> list[str]:
        return [label.name for label in self.project.labels.list(get_all=True)]

    def all_merge_requests(self) -> list[Attrs]:
        return [_attrs(m) for m in self.project.mergerequests.list(get_all=True)]

    def branch_heads(self) -> list[tuple[str, str]]:
        return [(b.name, b.commit["id"]) for b in self.project.branches.list(get_all=True)]


def _attrs(item: Any) -> Attrs:
    found: Attrs = item.asdict()
    return found


def _inert_description(data: Attrs) -> Attrs:
    """``data`` with its description, if any, made :func:`inert`."""
    description = data.get("description")
    if not isinstance(description, str):
        return data
    return {**data, "description": inert(description)}

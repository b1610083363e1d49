"""The local GitLab's state, in memory: users and tokens, projects, and what the API creates.

Operations check what GitLab checks for the endpoints the harness uses (a duplicate
milestone title is a 400, a second open merge request for a source branch a 409)
and raise :class:`ApiError` with GitLab's status code and error body. Every method
takes the store's lock, so handler threads see one consistent state.
"""

from __future__ import annotations

import secrets
import subprocess
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

JSON = dict[str, Any]

#: GitLab's access levels, by the role names its UI shows.
GUEST, REPORTER, DEVELOPER, MAINTAINER = 10, 20, 30, 40


class ApiError(Exception):
    """An answer other than 2xx: the status and GitLab's JSON (or text) body."""

    def __init__(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"{status}: {body}")
        self.status = status
        self.body = body
        self.headers = headers or {}


def not_found(what: str) -> ApiError:
    return ApiError(404, {"message": f"404 {what} Not Found"})


def now() -> str:
    """GitLab's timestamp format: ISO 8601 in UTC with milliseconds."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class User:
    id: int
    username: str
    name: str


@dataclass
class Token:
    value: str
    user: User
    scopes: tuple[str, ...]
    id: int = 0
    name: str = "harness"

    def allows(self, *scopes: str) -> bool:
        return any(scope in self.scopes for scope in scopes)


@dataclass
class Project:
    id: int
    path: str
    """``group/name``."""
    default_branch: str
    repo: Path
    """The bare repository that git smart HTTP serves."""
    members: dict[int, int] = field(default_factory=dict)
    """Access level by user id."""
    counters: dict[str, int] = field(default_factory=dict)
    """The last iid given out, per kind (issues, merge requests, milestones)."""

    def next_iid(self, kind: str) -> int:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return self.counters[kind]


@dataclass
class Milestone:
    id: int
    iid: int
    project_id: int
    title: str
    description: str
    state: str = "active"
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)


@dataclass
class Issue:
    id: int
    iid: int
    project_id: int
    title: str
    description: str
    author: User
    milestone_id: int | None = None
    labels: list[str] = field(default_factory=list)
    state: str = "opened"
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    closed_at: str | None = None


@dataclass
class Note:
    id: int
    project_id: int
    issue_iid: int
    body: str
    author: User
    system: bool = False
    created_at: str = field(default_factory=now)


@dataclass
class MergeRequestNote:
    """A note on a merge request (kept apart from issues' notes, as GitLab's API does)."""

    id: int
    project_id: int
    merge_request_iid: int
    body: str
    author: User
    created_at: str = field(default_factory=now)


@dataclass
class IssueLink:
    """A relation between two issues, stored as GitLab stores it: ``is_blocked_by`` is
    kept as the other issue ``blocks`` this one (source and target swapped)."""

    id: int
    source_project_id: int
    source_iid: int
    target_project_id: int
    target_iid: int
    link_type: str
    """``relates_to`` or ``blocks``."""
    created_at: str = field(default_factory=now)


@dataclass
class Label:
    id: int
    project_id: int
    name: str
    color: str = "#6699cc"


@dataclass
class MergeRequest:
    id: int
    iid: int
    project_id: int
    title: str
    description: str
    source_branch: str
    target_branch: str
    author: User
    state: str = "opened"
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)


@dataclass
class Branch:
    name: str
    commit: str
    title: str
    committed_date: str


class Store:
    """Everything the local GitLab holds. ``external_url`` is set once the server listens."""

    def __init__(self, repos_root: Path) -> None:
        self.repos_root = repos_root
        self.external_url = "http://127.0.0.1"
        self.lock = threading.RLock()
        self.users: list[User] = []
        self.tokens: dict[str, Token] = {}
        self.projects: list[Project] = []
        self.milestones: list[Milestone] = []
        self.issues: list[Issue] = []
        self.notes: list[Note] = []
        self.labels: list[Label] = []
        self.links: list[IssueLink] = []
        self.merge_requests: list[MergeRequest] = []
        self.merge_request_notes: list[MergeRequestNote] = []
        self._ids: dict[str, int] = {}

    def next_id(self, kind: str) -> int:
        """Global ids, one sequence per kind, as GitLab's database gives them out."""
        with self.lock:
            self._ids[kind] = self._ids.get(kind, 0) + 1
            return self._ids[kind]

    # --- setup --------------------------------------------------------------------------

    def add_user(self, username: str, name: str | None = None) -> User:
        with self.lock:
            user = User(self.next_id("user"), username, name or username)
            self.users.append(user)
            return user

    def add_token(
        self, user: User, scopes: tuple[str, ...] = ("api",), value: str | None = None
    ) -> Token:
        """A personal access token; GitLab's own start with ``glpat-``."""
        with self.lock:
            token = Token(
                value or f"glpat-{secrets.token_urlsafe(15)}", user, scopes, self.next_id("token")
            )
            self.tokens[token.value] = token
            return token

    def add_project(
        self, path: str, members: dict[User, int], default_branch: str = "main"
    ) -> Project:
        """A private project with an empty bare repository under ``repos_root``."""
        repo = self.repos_root / f"{path}.git"
        repo.parent.mkdir(parents=True, exist_ok=True)
        for args in (
            ["init", "--quiet", "--bare", "-b", default_branch, str(repo)],
            ["-C", str(repo), "config", "http.receivepack", "true"],
        ):
            subprocess.run(["git", *args], check=True, capture_output=True)
        with self.lock:
            project = Project(
                self.next_id("project"),
                path,
                default_branch,
                repo,
                {user.id: level for user, level in members.items()},
            )
            self.projects.append(project)
            return project

    # --- lookups ------------------------------------------------------------------------

    def token(self, value: str | None) -> Token | None:
        with self.lock:
            return self.tokens.get(value or "")

    def project(self, ident: str, user: User) -> Project:
        """A project by numeric id or ``group/name``; 404 for ones the user is not in."""
        with self.lock:
            for project in self.projects:
                if ident in (str(project.id), project.path) and user.id in project.members:
                    return project
        raise not_found("Project")

    def project_by_path(self, path: str) -> Project | None:
        with self.lock:
            return next((p for p in self.projects if p.path == path), None)

    def milestone(self, milestone_id: int) -> Milestone | None:
        with self.lock:
            return next((m for m in self.milestones if m.id == milestone_id), None)

    def issue(self, project: Project, iid: int) -> Issue:
        with self.lock:
            for issue in self.issues:
                if issue.project_id == project.id and issue.iid == iid:
                    return issue
        raise not_found("Issue")

    def user_notes_count(self, issue: Issue) -> int:
        with self.lock:
            return sum(
                1
                for n in self.notes
                if n.project_id == issue.project_id and n.issue_iid == issue.iid and not n.system
            )

    def ensure_labels(self, project: Project, names: list[str]) -> None:
        """GitLab creates the project labels an issue is given that do not exist yet."""
        with self.lock:
            known = {label.name for label in self.labels if label.project_id == project.id}
            for name in names:
                if name not in known:
                    self.labels.append(Label(self.next_id("label"), project.id, name))
                    known.add(name)

    def system_note(self, issue: Issue, body: str, author: User) -> None:
        with self.lock:
            self.notes.append(
                Note(self.next_id("note"), issue.project_id, issue.iid, body, author, system=True)
            )

    # --- the repository -----------------------------------------------------------------

    def branches(self, project: Project) -> list[Branch]:
        """The bare repository's branches, as git has them now."""
        done = subprocess.run(
            [
                "git",
                "-C",
                str(project.repo),
                "for-each-ref",
                "refs/heads",
                "--format=%(refname:short)%00%(objectname)%00%(contents:subject)%00%(committerdate:iso-strict)",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        found = []
        for line in done.stdout.splitlines():
            name, commit, title, date = line.split("\0")
            found.append(Branch(name, commit, title, date))
        return found

    def branch(self, project: Project, name: str) -> Branch | None:
        return next((b for b in self.branches(project) if b.name == name), None)

"""The REST v4 endpoints the harness uses, over the :class:`Store`.

Each endpoint gets a :class:`Call` (the token, the path arguments and the merged
query and body parameters, as GitLab's Grape API merges them) and returns a status
and a JSON body; a list body is paginated by the server. Errors are raised as
:class:`ApiError` with GitLab's status codes and bodies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.gitlab_local import entities, quick_actions
from agent.gitlab_local.quick_actions import QuickAction
from agent.gitlab_local.store import (
    DEVELOPER,
    GUEST,
    JSON,
    REPORTER,
    ApiError,
    Issue,
    IssueLink,
    MergeRequest,
    MergeRequestNote,
    Milestone,
    Note,
    Project,
    Store,
    Token,
    not_found,
    now,
)

Body = JSON | list[JSON]


@dataclass
class Call:
    store: Store
    token: Token
    args: list[str]
    params: dict[str, Any]

    def project(self, minimum: int = GUEST) -> Project:
        project = self.store.project(self.args[0], self.token.user)
        if project.members.get(self.token.user.id, 0) < minimum:
            raise ApiError(403, {"message": "403 Forbidden"})
        return project

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.params.get(name, default)
        return None if value is None else str(value)

    def required(self, *names: str) -> None:
        missing = [name for name in names if not self.params.get(name)]
        if missing:
            raise ApiError(400, {"error": ", ".join(f"{name} is missing" for name in missing)})


def _names(value: object) -> list[str]:
    """GitLab takes label lists as comma-separated text or as arrays."""
    if value is None:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(item).strip() for item in items if str(item).strip()]


def _ordered(items: list[Any], call: Call, default_order: str = "created_at") -> list[Any]:
    key = call.text("order_by", default_order) or default_order
    reverse = (call.text("sort", "desc") or "desc") == "desc"
    return sorted(items, key=lambda item: (getattr(item, key, ""), item.id), reverse=reverse)


# --- user and token ---------------------------------------------------------------------


def get_user(call: Call) -> tuple[int, Body]:
    return 200, entities.user(call.store, call.token.user)


def get_token_self(call: Call) -> tuple[int, Body]:
    return 200, entities.token(call.token)


def get_project(call: Call) -> tuple[int, Body]:
    return 200, entities.project(call.store, call.project(), call.token.user)


# --- milestones -------------------------------------------------------------------------


def list_milestones(call: Call) -> tuple[int, Body]:
    project = call.project()
    title, state, search = call.text("title"), call.text("state"), call.text("search")
    with call.store.lock:
        found = [
            m
            for m in call.store.milestones
            if m.project_id == project.id
            and (title is None or m.title == title)
            and (state is None or m.state == state)
            and (search is None or search.lower() in (m.title + m.description).lower())
        ]
        return 200, [entities.milestone(call.store, m) for m in _ordered(found, call)]


def create_milestone(call: Call) -> tuple[int, Body]:
    project = call.project(REPORTER)
    call.required("title")
    title = call.text("title") or ""
    with call.store.lock:
        if any(m.project_id == project.id and m.title == title for m in call.store.milestones):
            errors = '{:title=>["already being used for another group or project milestone."]}'
            raise ApiError(400, {"message": f"Failed to create milestone {errors}"})
        item = Milestone(
            call.store.next_id("milestone"),
            project.next_iid("milestones"),
            project.id,
            title,
            call.text("description", "") or "",
        )
        call.store.milestones.append(item)
        return 201, entities.milestone(call.store, item)


def get_milestone(call: Call) -> tuple[int, Body]:
    project = call.project()
    found = call.store.milestone(int(call.args[1]))
    if found is None or found.project_id != project.id:
        raise not_found("Milestone")
    return 200, entities.milestone(call.store, found)


def update_milestone(call: Call) -> tuple[int, Body]:
    """Change a milestone's title, description or state (GitLab runs no quick action in
    a milestone's description)."""
    project = call.project(REPORTER)
    with call.store.lock:
        found = call.store.milestone(int(call.args[1]))
        if found is None or found.project_id != project.id:
            raise not_found("Milestone")
        title, description = call.text("title"), call.text("description")
        if title is not None:
            found.title = title
        if description is not None:
            found.description = description
        event = call.text("state_event")
        if event in ("close", "activate"):
            found.state = "closed" if event == "close" else "active"
        found.updated_at = now()
        return 200, entities.milestone(call.store, found)


# --- issues -----------------------------------------------------------------------------


def list_issues(call: Call) -> tuple[int, Body]:
    project = call.project()
    state = call.text("state", "all")
    milestone, labels = call.text("milestone"), _names(call.params.get("labels"))
    search = (call.text("search") or "").lower()
    with call.store.lock:
        titles = {m.id: m.title for m in call.store.milestones}
        found = [
            i
            for i in call.store.issues
            if i.project_id == project.id
            and state in ("all", i.state)
            and (milestone is None or titles.get(i.milestone_id or 0) == milestone)
            and all(label in i.labels for label in labels)
            and (not search or search in (i.title + i.description).lower())
        ]
        return 200, [entities.issue(call.store, i) for i in _ordered(found, call)]


def create_issue(call: Call) -> tuple[int, Body]:
    project = call.project(GUEST)
    call.required("title")
    milestone_id = call.params.get("milestone_id")
    labels = _names(call.params.get("labels"))
    description, actions = quick_actions.extract(
        call.text("description", "") or "", quick_actions.ISSUE_COMMANDS
    )
    with call.store.lock:
        item = Issue(
            call.store.next_id("issue"),
            project.next_iid("issues"),
            project.id,
            call.text("title") or "",
            description,
            call.token.user,
            int(milestone_id) if milestone_id else None,
            labels,
        )
        call.store.ensure_labels(project, labels)
        call.store.issues.append(item)
        _carry_out_on_issue(call, project, item, actions)
        return 201, entities.issue(call.store, item)


def get_issue(call: Call) -> tuple[int, Body]:
    return 200, entities.issue(call.store, call.store.issue(call.project(), int(call.args[1])))


def update_issue(call: Call) -> tuple[int, Body]:
    project = call.project(REPORTER)
    store, author = call.store, call.token.user
    with store.lock:
        item = store.issue(project, int(call.args[1]))
        title, description = call.text("title"), call.text("description")
        actions: list[QuickAction] = []
        if description is not None:
            description, actions = quick_actions.extract(description, quick_actions.ISSUE_COMMANDS)
        if title is not None and title != item.title:
            store.system_note(item, f"changed title from **{item.title}** to **{title}**", author)
            item.title = title
        if description is not None and description != item.description:
            store.system_note(item, "changed the description", author)
            item.description = description
        labels = list(item.labels)
        if "labels" in call.params:
            labels = _names(call.params["labels"])
        labels += [n for n in _names(call.params.get("add_labels")) if n not in labels]
        removed = set(_names(call.params.get("remove_labels")))
        item.labels = [n for n in labels if n not in removed]
        store.ensure_labels(project, item.labels)
        event = call.text("state_event")
        if event in ("close", "reopen"):  # the same as its quick action, carried out first
            actions.insert(0, QuickAction(event))
        _carry_out_on_issue(call, project, item, actions)
        item.updated_at = now()
        return 200, entities.issue(store, item)


def _carry_out_on_issue(
    call: Call, project: Project, item: Issue, actions: list[QuickAction]
) -> None:
    """What GitLab does for the quick actions of an issue's description or note."""
    store, author = call.store, call.token.user
    for action in actions:
        if action.name == "close" and item.state != "closed":
            item.state, item.closed_at = "closed", now()
            store.system_note(item, "closed", author)
        elif action.name == "reopen" and item.state != "opened":
            item.state, item.closed_at = "opened", None
            store.system_note(item, "reopened", author)
        elif action.name == "label":
            item.labels += [n for n in action.labels() if n not in item.labels]
            store.ensure_labels(project, item.labels)
        elif action.name == "unlabel":
            removed = set(action.labels())
            item.labels = [n for n in item.labels if n not in removed] if removed else []
        elif action.name == "title" and action.argument:
            item.title = action.argument


# --- issue links ------------------------------------------------------------------------

#: What a link type reads as from its target's side.
_LINK_INVERSE = {"relates_to": "relates_to", "blocks": "is_blocked_by"}
_LINK_TYPES = ("relates_to", "blocks", "is_blocked_by")


def list_issue_links(call: Call) -> tuple[int, Body]:
    """An issue's linked issues, oldest link first, each with the link as seen from it."""
    project = call.project()
    store = call.store
    with store.lock:
        issue = store.issue(project, int(call.args[1]))
        found: list[JSON] = []
        for link in sorted(store.links, key=lambda item: item.id):
            here_source = (link.source_project_id, link.source_iid) == (project.id, issue.iid)
            here_target = (link.target_project_id, link.target_iid) == (project.id, issue.iid)
            if here_source:
                other = _issue_by_ids(store, link.target_project_id, link.target_iid)
                found.append(entities.linked_issue(store, other, link, link.link_type))
            elif here_target:
                other = _issue_by_ids(store, link.source_project_id, link.source_iid)
                seen_as = _LINK_INVERSE[link.link_type]
                found.append(entities.linked_issue(store, other, link, seen_as))
        return 200, found


def create_issue_link(call: Call) -> tuple[int, Body]:
    """Link the issue to ``target_issue_iid`` of ``target_project_id``: one link per pair
    (409 otherwise); ``is_blocked_by`` is stored as the target ``blocks`` the issue."""
    project = call.project(GUEST)
    call.required("target_project_id", "target_issue_iid")
    link_type = call.text("link_type", "relates_to") or "relates_to"
    if link_type not in _LINK_TYPES:
        raise ApiError(400, {"error": "link_type does not have a valid value"})
    store = call.store
    target_project = store.project(call.text("target_project_id") or "", call.token.user)
    with store.lock:
        source = store.issue(project, int(call.args[1]))
        try:
            target = store.issue(target_project, int(call.text("target_issue_iid") or "0"))
        except ValueError as e:
            raise ApiError(400, {"error": "target_issue_iid is invalid"}) from e
        if source.id == target.id:
            raise ApiError(400, {"message": "Cannot assign an issue to itself"})
        pair = {source.id, target.id}
        for link in store.links:
            ends = {
                _issue_by_ids(store, link.source_project_id, link.source_iid).id,
                _issue_by_ids(store, link.target_project_id, link.target_iid).id,
            }
            if ends == pair:
                raise ApiError(409, {"message": "Issue(s) already assigned"})
        first, second = (target, source) if link_type == "is_blocked_by" else (source, target)
        stored = "blocks" if link_type != "relates_to" else "relates_to"
        store.links.append(
            IssueLink(
                store.next_id("issue_link"),
                first.project_id,
                first.iid,
                second.project_id,
                second.iid,
                stored,
            )
        )
        return 201, {
            "source_issue": entities.issue(store, source),
            "target_issue": entities.issue(store, target),
            "link_type": link_type,
        }


def _issue_by_ids(store: Store, project_id: int, iid: int) -> Issue:
    for item in store.issues:
        if item.project_id == project_id and item.iid == iid:
            return item
    raise not_found("Issue")


# --- notes ------------------------------------------------------------------------------


def list_notes(call: Call) -> tuple[int, Body]:
    project = call.project()
    with call.store.lock:
        issue = call.store.issue(project, int(call.args[1]))
        found = [
            n for n in call.store.notes if n.project_id == project.id and n.issue_iid == issue.iid
        ]
        return 200, [entities.note(call.store, n) for n in _ordered(found, call)]


def create_note(call: Call) -> tuple[int, Body]:
    project = call.project(GUEST)
    call.required("body")
    body, actions = quick_actions.extract(call.text("body") or "", quick_actions.ISSUE_COMMANDS)
    with call.store.lock:
        issue = call.store.issue(project, int(call.args[1]))
        _carry_out_on_issue(call, project, issue, actions)
        issue.updated_at = now()
        if actions and not body:
            # A note of commands only is not stored; GitLab answers with what changed.
            return 202, {"commands_changes": {}, "summary": [a.name for a in actions]}
        item = Note(call.store.next_id("note"), project.id, issue.iid, body, call.token.user)
        call.store.notes.append(item)
        return 201, entities.note(call.store, item)


def list_labels(call: Call) -> tuple[int, Body]:
    project = call.project()
    with call.store.lock:
        found = [label for label in call.store.labels if label.project_id == project.id]
        return 200, [entities.label(label) for label in sorted(found, key=lambda x: x.name)]


# --- merge requests and branches --------------------------------------------------------


def list_merge_requests(call: Call) -> tuple[int, Body]:
    project = call.project()
    state = call.text("state", "all")
    source, target = call.text("source_branch"), call.text("target_branch")
    with call.store.lock:
        found = [
            mr
            for mr in call.store.merge_requests
            if mr.project_id == project.id
            and state in ("all", mr.state)
            and source in (None, mr.source_branch)
            and target in (None, mr.target_branch)
        ]
        return 200, [entities.merge_request(call.store, mr) for mr in _ordered(found, call)]


def create_merge_request(call: Call) -> tuple[int, Body]:
    project = call.project(DEVELOPER)
    call.required("source_branch", "target_branch", "title")
    source, target = call.text("source_branch") or "", call.text("target_branch") or ""
    branches = {b.name for b in call.store.branches(project)}
    with call.store.lock:
        problems = [
            f'{side} branch "{name}" does not exist'
            for side, name in (("Source", source), ("Target", target))
            if name not in branches
        ]
        if source == target:
            problems.append("You can't use same project/branch for source and target")
        for mr in call.store.merge_requests:
            if mr.project_id == project.id and mr.source_branch == source and mr.state == "opened":
                problems.append(
                    f"Another open merge request already exists for this source branch: !{mr.iid}"
                )
        if problems:
            raise ApiError(409, {"message": problems})
        description, actions = quick_actions.extract(
            call.text("description", "") or "", quick_actions.MERGE_REQUEST_COMMANDS
        )
        item = MergeRequest(
            call.store.next_id("merge_request"),
            project.next_iid("merge_requests"),
            project.id,
            call.text("title") or "",
            description,
            source,
            target,
            call.token.user,
        )
        call.store.merge_requests.append(item)
        for action in actions:
            if action.name == "merge":
                item.state = "merged"
            elif action.name == "close":
                item.state = "closed"
            elif action.name == "title" and action.argument:
                item.title = action.argument
        return 201, entities.merge_request(call.store, item)


def get_merge_request(call: Call) -> tuple[int, Body]:
    project = call.project()
    with call.store.lock:
        for mr in call.store.merge_requests:
            if mr.project_id == project.id and mr.iid == int(call.args[1]):
                return 200, entities.merge_request(call.store, mr)
    raise not_found("Merge Request")


def _merge_request(call: Call, project: Project) -> MergeRequest:
    for mr in call.store.merge_requests:
        if mr.project_id == project.id and mr.iid == int(call.args[1]):
            return mr
    raise not_found("Merge Request")


def list_merge_request_notes(call: Call) -> tuple[int, Body]:
    project = call.project()
    with call.store.lock:
        mr = _merge_request(call, project)
        found = [
            n
            for n in call.store.merge_request_notes
            if n.project_id == project.id and n.merge_request_iid == mr.iid
        ]
        return 200, [entities.merge_request_note(call.store, n) for n in _ordered(found, call)]


def create_merge_request_note(call: Call) -> tuple[int, Body]:
    """A note on a merge request; its quick actions are carried out like GitLab does."""
    project = call.project(GUEST)
    call.required("body")
    body, actions = quick_actions.extract(
        call.text("body") or "", quick_actions.MERGE_REQUEST_COMMANDS
    )
    with call.store.lock:
        mr = _merge_request(call, project)
        for action in actions:
            if action.name == "merge":
                mr.state = "merged"
            elif action.name == "close":
                mr.state = "closed"
        if actions and not body:
            return 202, {"commands_changes": {}, "summary": [a.name for a in actions]}
        item = MergeRequestNote(
            call.store.next_id("note"), project.id, mr.iid, body, call.token.user
        )
        call.store.merge_request_notes.append(item)
        return 201, entities.merge_request_note(call.store, item)


def list_branches(call: Call) -> tuple[int, Body]:
    project = call.project()
    search = call.text("search")
    return 200, [
        entities.branch(call.store, b, project)
        for b in call.store.branches(project)
        if search is None or search in b.name
    ]


def get_branch(call: Call) -> tuple[int, Body]:
    project = call.project()
    found = call.store.branch(project, call.args[1])
    if found is None:
        raise not_found("Branch")
    return 200, entities.branch(call.store, found, project)


Endpoint = Callable[[Call], tuple[int, Body]]
P, N, S = ":project", ":number", ":text"
#: (method, path pattern under /api/v4) → endpoint; placeholders capture one segment.
ROUTES: list[tuple[str, tuple[str, ...], Endpoint]] = [
    ("GET", ("user",), get_user),
    ("GET", ("personal_access_tokens", "self"), get_token_self),
    ("GET", ("projects", P), get_project),
    ("GET", ("projects", P, "milestones"), list_milestones),
    ("POST", ("projects", P, "milestones"), create_milestone),
    ("GET", ("projects", P, "milestones", N), get_milestone),
    ("PUT", ("projects", P, "milestones", N), update_milestone),
    ("GET", ("projects", P, "issues"), list_issues),
    ("POST", ("projects", P, "issues"), create_issue),
    ("GET", ("projects", P, "issues", N), get_issue),
    ("PUT", ("projects", P, "issues", N), update_issue),
    ("GET", ("projects", P, "issues", N, "links"), list_issue_links),
    ("POST", ("projects", P, "issues", N, "links"), create_issue_link),
    ("GET", ("projects", P, "issues", N, "notes"), list_notes),
    ("POST", ("projects", P, "issues", N, "notes"), create_note),
    ("GET", ("projects", P, "labels"), list_labels),
    ("GET", ("projects", P, "merge_requests"), list_merge_requests),
    ("POST", ("projects", P, "merge_requests"), create_merge_request),
    ("GET", ("projects", P, "merge_requests", N), get_merge_request),
    ("GET", ("projects", P, "merge_requests", N, "notes"), list_merge_request_notes),
    ("POST", ("projects", P, "merge_requests", N, "notes"), create_merge_request_note),
    ("GET", ("projects", P, "repository", "branches"), list_branches),
    ("GET", ("projects", P, "repository", "branches", S), get_branch),
]


def route(method: str, segments: list[str]) -> tuple[Endpoint, list[str]]:
    """The endpoint for a request and its captured arguments.

    Raises:
        ApiError: 404 for an unknown path, 405 for a known path and another method.
    """
    path_matched = False
    for verb, pattern, endpoint in ROUTES:
        if len(pattern) != len(segments):
            continue
        args: list[str] = []
        for part, segment in zip(pattern, segments, strict=True):
            if part in (P, S) or (part == N and segment.isdigit()):
                args.append(segment)
            elif part != segment:
                break
        else:
            path_matched = True
            if verb == method:
                return endpoint, args
    if path_matched:
        raise ApiError(405, {"error": "405 Not Allowed"})
    raise ApiError(404, {"error": "404 Not Found"})


def required_scopes(method: str, segments: list[str]) -> tuple[str, ...]:
    """The token scopes GitLab accepts for a request: any of them will do."""
    if segments == ["personal_access_tokens", "self"]:
        return ("api", "read_api", "read_user", "read_repository", "write_repository")
    if segments == ["user"] and method == "GET":
        return ("api", "read_api", "read_user")
    return ("api", "read_api") if method == "GET" else ("api",)

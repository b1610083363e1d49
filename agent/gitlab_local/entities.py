"""The JSON shapes of GitLab's REST v4 entities, for the objects the local server holds.

Only the fields a client of these endpoints commonly reads are rendered; names and
types follow GitLab's API documentation.
"""

from __future__ import annotations

from agent.gitlab_local.store import (
    JSON,
    Branch,
    Issue,
    IssueLink,
    Label,
    MergeRequest,
    MergeRequestNote,
    Milestone,
    Note,
    Project,
    Store,
    Token,
    User,
)


def user(store: Store, who: User) -> JSON:
    return {
        "id": who.id,
        "username": who.username,
        "name": who.name,
        "state": "active",
        "avatar_url": None,
        "web_url": f"{store.external_url}/{who.username}",
    }


def token(item: Token) -> JSON:
    return {
        "id": item.id,
        "name": item.name,
        "revoked": False,
        "active": True,
        "scopes": list(item.scopes),
        "user_id": item.user.id,
        "expires_at": None,
    }


def project(store: Store, item: Project, viewer: User) -> JSON:
    group, _, name = item.path.rpartition("/")
    web = f"{store.external_url}/{item.path}"
    return {
        "id": item.id,
        "name": name,
        "path": name,
        "path_with_namespace": item.path,
        "name_with_namespace": item.path.replace("/", " / "),
        "namespace": {"full_path": group, "path": group.rpartition("/")[2], "kind": "group"},
        "default_branch": item.default_branch,
        "visibility": "private",
        "web_url": web,
        "http_url_to_repo": f"{web}.git",
        "ssh_url_to_repo": f"git@{store.external_url.split('://', 1)[-1]}:{item.path}.git",
        "permissions": {
            "project_access": {"access_level": item.members.get(viewer.id, 0)},
            "group_access": None,
        },
    }


def milestone(store: Store, item: Milestone) -> JSON:
    path = _path(store, item.project_id)
    return {
        **_tracked(item),
        "due_date": None,
        "start_date": None,
        "expired": False,
        "web_url": f"{store.external_url}/{path}/-/milestones/{item.iid}",
    }


def issue(store: Store, item: Issue) -> JSON:
    path = _path(store, item.project_id)
    found = store.milestone(item.milestone_id) if item.milestone_id else None
    return {
        **_tracked(item),
        "closed_at": item.closed_at,
        "labels": sorted(item.labels),
        "milestone": milestone(store, found) if found else None,
        "author": user(store, item.author),
        "assignees": [],
        "type": "ISSUE",
        "issue_type": "issue",
        "user_notes_count": store.user_notes_count(item),
        "confidential": False,
        "web_url": f"{store.external_url}/{path}/-/issues/{item.iid}",
        "references": {
            "short": f"#{item.iid}",
            "relative": f"#{item.iid}",
            "full": f"{path}#{item.iid}",
        },
    }


def linked_issue(store: Store, item: Issue, link: IssueLink, link_type: str) -> JSON:
    """An issue as ``GET …/issues/:iid/links`` lists it: the issue, with the link's fields
    (``link_type`` as seen from the issue whose links are listed)."""
    return {
        **issue(store, item),
        "issue_link_id": link.id,
        "link_type": link_type,
        "link_created_at": link.created_at,
        "link_updated_at": link.created_at,
    }


def note(store: Store, item: Note) -> JSON:
    found = next(
        (i for i in store.issues if i.project_id == item.project_id and i.iid == item.issue_iid),
        None,
    )
    return {
        "id": item.id,
        "type": None,
        "body": item.body,
        "author": user(store, item.author),
        "created_at": item.created_at,
        "updated_at": item.created_at,
        "system": item.system,
        "noteable_id": found.id if found else None,
        "noteable_type": "Issue",
        "noteable_iid": item.issue_iid,
        "project_id": item.project_id,
        "resolvable": False,
        "confidential": False,
        "internal": False,
    }


def label(item: Label) -> JSON:
    return {
        "id": item.id,
        "name": item.name,
        "color": item.color,
        "text_color": "#FFFFFF",
        "description": None,
        "is_project_label": True,
    }


def merge_request(store: Store, item: MergeRequest) -> JSON:
    path = _path(store, item.project_id)
    return {
        **_tracked(item),
        "source_branch": item.source_branch,
        "target_branch": item.target_branch,
        "source_project_id": item.project_id,
        "target_project_id": item.project_id,
        "author": user(store, item.author),
        "labels": [],
        "draft": False,
        "merge_status": "can_be_merged",
        "detailed_merge_status": "mergeable",
        "web_url": f"{store.external_url}/{path}/-/merge_requests/{item.iid}",
        "references": {
            "short": f"!{item.iid}",
            "relative": f"!{item.iid}",
            "full": f"{path}!{item.iid}",
        },
    }


def merge_request_note(store: Store, item: MergeRequestNote) -> JSON:
    found = next(
        (
            mr
            for mr in store.merge_requests
            if mr.project_id == item.project_id and mr.iid == item.merge_request_iid
        ),
        None,
    )
    return {
        "id": item.id,
        "type": None,
        "body": item.body,
        "author": user(store, item.author),
        "created_at": item.created_at,
        "updated_at": item.created_at,
        "system": False,
        "noteable_id": found.id if found else None,
        "noteable_type": "MergeRequest",
        "noteable_iid": item.merge_request_iid,
        "project_id": item.project_id,
    }


def branch(store: Store, item: Branch, owner: Project) -> JSON:
    return {
        "name": item.name,
        "merged": False,
        "protected": item.name == owner.default_branch,
        "default": item.name == owner.default_branch,
        "developers_can_push": False,
        "developers_can_merge": False,
        "can_push": True,
        "web_url": f"{store.external_url}/{owner.path}/-/tree/{item.name}",
        "commit": {
            "id": item.commit,
            "short_id": item.commit[:8],
            "title": item.title,
            "committed_date": item.committed_date,
        },
    }


def _tracked(item: Milestone | Issue | MergeRequest) -> JSON:
    """The fields GitLab renders alike for milestones, issues and merge requests."""
    return {
        "id": item.id,
        "iid": item.iid,
        "project_id": item.project_id,
        "title": item.title,
        "description": item.description,
        "state": item.state,
        "created_at": item.created_at,
        "updated_at": item.updated_at,
    }


def _path(store: Store, project_id: int) -> str:
    return next((p.path for p in store.projects if p.id == project_id), "?")

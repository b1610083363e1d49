"""project_verification in GitLab mode: every way of being unable to work is one line,
and nothing is created."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from agent.gitlab_local.store import REPORTER
from agent.tracker.factory import gitlab_settings
from agent.tracker.push import parse_remote
from common.errors import TrackerError
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo

from .conftest import Lab, git


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def assert_nothing_created(lab: Lab) -> None:
    store = lab.server.store
    assert (store.milestones, store.issues, store.notes, store.merge_requests) == ([], [], [], [])


async def verify_fails(lab: Lab, **changes: object) -> str:
    tracker = lab.tracker(lab.settings(**changes))
    with pytest.raises(TrackerError) as failed:
        await tracker.verify()
    message = str(failed.value)
    assert "\n" not in message
    assert lab.token.value not in message
    assert not tracker.mirror.exists()
    assert_nothing_created(lab)
    return message


async def test_a_bad_token(lab: Lab) -> None:
    message = await verify_fails(lab, token="glpat-not-a-token")
    assert message == (
        "GitLab rejected the token (401 Unauthorized): check GITLAB_PERSONAL_ACCESS_TOKEN"
    )


async def test_a_token_without_the_api_scope(lab: Lab) -> None:
    user_only = lab.server.store.add_token(lab.token.user, ("read_user",))
    message = await verify_fails(lab, token=user_only.value)
    assert message == (
        "GitLab refused to read project group/app (403 insufficient_scope): "
        "the token needs the api scope"
    )
    read_only = lab.server.store.add_token(lab.token.user, ("read_api", "read_repository"))
    message = await verify_fails(lab, token=read_only.value)
    assert message.startswith("the token lacks the api scope (it has read_api, read_repository)")


async def test_a_user_below_developer(lab: Lab) -> None:
    reporter = lab.server.store.add_user("reporter")
    lab.project.members[reporter.id] = REPORTER
    token = lab.server.store.add_token(reporter)
    message = await verify_fails(lab, token=token.value)
    assert message.startswith("reporter is not a Developer (or higher) in group/app")


async def test_an_unknown_project(lab: Lab) -> None:
    message = await verify_fails(lab, project_path="group/nothing")
    assert message == (
        f"GitLab project group/nothing not found at {lab.server.api_url} (404): "
        "check the origin remote and that the token's user is a member"
    )


async def test_an_unreachable_host(lab: Lab) -> None:
    url = f"http://127.0.0.1:{free_port()}/api/v4"
    message = await verify_fails(lab, api_url=url)
    assert message == (
        f"cannot reach GitLab at {url} (connection refused) to check the token: "
        "check GITLAB_API_URL and the network (gave up after 6 attempts)"
    )


async def test_a_missing_target_branch_is_a_warning(lab: Lab) -> None:
    warnings = await lab.tracker(lab.settings(target_branch="develop")).verify()
    assert warnings == [
        "target branch develop is not on GitLab (group/app); push it before the merge request stage"
    ]


# --- configuration ------------------------------------------------------------------------


def info_for(repo: Path) -> WorkspaceInfo:
    spec = AgentSpec(spec_file=repo / "spec.md", project_dir=repo, target_branch="main")
    return WorkspaceInfo(spec=spec, spec_slug="spec", feature_branch="feature/spec")


def test_the_project_and_the_api_come_from_origin(lab: Lab) -> None:
    token = {"GITLAB_PERSONAL_ACCESS_TOKEN": "glpat-x"}
    settings = gitlab_settings(info_for(lab.repo), token, {})
    assert (settings.api_url, settings.project_path, settings.problem) == (
        lab.server.api_url,
        "group/app",
        None,
    )
    assert settings.token == "glpat-x"

    git(lab.repo, "remote", "set-url", "origin", "https://gitlab.example.com/tools/sub/app.git")
    other = gitlab_settings(
        info_for(lab.repo), token, {"GITLAB_API_URL": "https://gl.example.org/"}
    )
    assert (other.api_url, other.project_path) == ("https://gl.example.org/api/v4", "tools/sub/app")
    assert other.warnings == (
        "origin is on gitlab.example.com but GITLAB_API_URL on gl.example.org",
    )

    git(lab.repo, "remote", "set-url", "origin", "https://example.com/gitlab/tools/app.git")
    prefixed = gitlab_settings(
        info_for(lab.repo), token, {"GITLAB_API_URL": "https://example.com/gitlab/api/v4"}
    )
    assert prefixed.project_path == "tools/app"


@pytest.mark.parametrize(
    ("origin", "problem"),
    [
        (None, "has no origin remote: GitLab mode finds its project there"),
        ("/srv/git/app.git", "origin is not a GitLab project address: origin is a local path"),
        ("https://gitlab.com/app.git", "origin is not a GitLab project address"),
    ],
)
def test_an_unusable_origin_is_reported_at_verification(
    lab: Lab, origin: str | None, problem: str
) -> None:
    if origin is None:
        git(lab.repo, "remote", "remove", "origin")
    else:
        git(lab.repo, "remote", "set-url", "origin", origin)
    settings = gitlab_settings(info_for(lab.repo), {"GITLAB_PERSONAL_ACCESS_TOKEN": "t"}, {})
    assert settings.problem is not None and problem in settings.problem


async def test_a_missing_token_is_reported_at_verification(lab: Lab) -> None:
    settings = gitlab_settings(info_for(lab.repo), {}, {})
    assert settings.problem is not None
    assert settings.problem.startswith("GITLAB_PERSONAL_ACCESS_TOKEN is not set")


@pytest.mark.parametrize(
    ("url", "scheme", "host", "path", "credentials"),
    [
        ("https://gitlab.com/group/app.git", "https", "gitlab.com", "group/app", False),
        ("http://127.0.0.1:8080/g/sub/app", "http", "127.0.0.1:8080", "g/sub/app", False),
        ("https://oauth2:glpat-x@gitlab.com/g/app.git", "https", "gitlab.com", "g/app", True),
        ("git@gitlab.com:group/app.git", "ssh", "gitlab.com", "group/app", False),
        (
            "ssh://git@gitlab.example.com:2222/g/app.git",
            "ssh",
            "gitlab.example.com",
            "g/app",
            False,
        ),
    ],
)
def test_remote_urls(url: str, scheme: str, host: str, path: str, credentials: bool) -> None:
    remote = parse_remote(url)
    assert (remote.scheme, remote.host, remote.path, remote.has_credentials) == (
        scheme,
        host,
        path,
        credentials,
    )

"""A bad spec is refused with one line, and leaves no workspace behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from agent.daemon.supervisor import Supervisor
from common.errors import DaemonError
from common.paths import WORKSPACE_ROOT_NAME
from common.schemas.spec import AgentSpec

from .conftest import MakeSpec


def git_excludes(project: Path) -> str:
    """The project's ``.git/info/exclude``, where a prepared workspace adds itself."""
    exclude = subprocess.run(
        ["git", "-C", str(project), "rev-parse", "--git-path", "info/exclude"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return (project / exclude).read_text()


async def test_a_missing_spec_file_is_refused(
    client: DaemonClient, project: Path, tmp_path: Path
) -> None:
    spec = AgentSpec(spec_file=tmp_path / "absent.md", project_dir=project, target_branch="main")

    with pytest.raises(DaemonError, match=r"spec_file .*absent\.md does not exist"):
        await client.start(spec)

    assert not (project / WORKSPACE_ROOT_NAME).exists()
    assert await client.list_agents() == []


async def test_a_project_that_is_not_a_git_repository_is_refused(
    client: DaemonClient, make_spec: MakeSpec, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    spec = make_spec("idle").model_copy(update={"project_dir": plain})

    with pytest.raises(DaemonError, match="is not a git repository"):
        await client.start(spec)

    assert not (plain / WORKSPACE_ROOT_NAME).exists()


async def test_an_unknown_target_branch_is_refused(
    client: DaemonClient, make_spec: MakeSpec, project: Path
) -> None:
    spec = make_spec("idle").model_copy(update={"target_branch": "develop"})

    with pytest.raises(DaemonError, match=r"target_branch 'develop' does not exist .*main"):
        await client.start(spec)

    assert not (project / WORKSPACE_ROOT_NAME).exists()
    assert WORKSPACE_ROOT_NAME not in git_excludes(project)


async def test_a_spawn_failure_is_an_error_reply(harness_home: Path, make_spec: MakeSpec) -> None:
    supervisor = Supervisor(harness_home, lambda workspace: ["/nonexistent/agent"])
    server = DaemonServer(supervisor, harness_home)
    await server.start()
    try:
        async with DaemonClient.connect() as client:
            with pytest.raises(DaemonError, match=r"cannot start agent_1 \(/nonexistent/agent\)"):
                await client.start(make_spec("idle"))
            assert await client.list_agents() == []
    finally:
        await server.close()

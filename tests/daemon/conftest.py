"""Fixtures for the daemon tests: a short private HARNESS_HOME, a git project,
specs that pick the fake agent's behaviour, and an in-process daemon."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.procs import is_alive
from agent.daemon.server import DaemonServer
from agent.daemon.supervisor import Supervisor
from common.atomic import read_model_or_none
from common.paths import daemon_state_path
from common.schemas.daemon_state import DaemonState
from common.schemas.spec import AgentSpec

REPO_ROOT = Path(__file__).resolve().parents[2]
FAKE_AGENT = Path(__file__).with_name("fake_agent.py")

MakeSpec = Callable[[str], AgentSpec]


def fake_agent_command(workspace: Path) -> list[str]:
    """Run the fake agent on ``workspace``."""
    return [sys.executable, str(FAKE_AGENT), str(workspace)]


def make_supervisor(home: Path, *, stop_timeout: float = 5.0) -> Supervisor:
    """A supervisor running the fake agent, with test-sized timeouts."""
    return Supervisor(
        home,
        fake_agent_command,
        stop_timeout=stop_timeout,
        kill_timeout=5.0,
        adopted_check_interval=0.1,
    )


def kill_agents(home: Path) -> None:
    """End every agent a test left running, with its process group."""
    state = read_model_or_none(daemon_state_path(home), DaemonState)
    for record in state.agents if state else []:
        if record.pid is not None and is_alive(record.pid, record.pid_start_ticks):
            with contextlib.suppress(ProcessLookupError):  # it exited meanwhile
                os.killpg(record.pid, signal.SIGKILL)


@pytest.fixture(autouse=True)
def harness_home(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The short, private HARNESS_HOME of ``tests/conftest.py``; agents left running are ended.

    ``PYTHONPATH`` lets the daemon started as a process import this checkout
    whatever its working directory.
    """
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    yield isolated_home
    kill_agents(isolated_home)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a ``main`` branch and one commit."""
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "README.md").write_text("# demo\n")

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "--initial-branch=main")
    git("add", "README.md")
    git("-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-m", "init")
    return repo


@pytest.fixture
def make_spec(project: Path, tmp_path: Path) -> MakeSpec:
    """``make_spec(mode)``: a spec whose content tells the fake agent what to do."""
    specs = tmp_path / "specs"
    specs.mkdir()

    def make(mode: str) -> AgentSpec:
        spec_file = specs / f"{mode}.md"
        spec_file.write_text(f"{mode}\n")
        # The embedded model: these agents need no Claude credentials to be started.
        return AgentSpec(
            spec_file=spec_file, project_dir=project, target_branch="main", model="local"
        )

    return make


@pytest.fixture
async def daemon(harness_home: Path) -> AsyncIterator[DaemonServer]:
    """A daemon served from this test's event loop."""
    server = DaemonServer(make_supervisor(harness_home), harness_home)
    await server.start()
    yield server
    await server.close()


@pytest.fixture
async def client(daemon: DaemonServer) -> AsyncIterator[DaemonClient]:
    """A connected client of the in-process daemon."""
    async with DaemonClient.connect() as connected:
        yield connected

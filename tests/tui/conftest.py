"""Fixtures for the TUI tests: workspaces with real checkpoint and log files, a test app
wired to a fake daemon link, and (for the slow tests) a real daemon with real agents."""

from __future__ import annotations

import shlex
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.demo import prepare_demo
from common.schemas.protocol import AgentInfo
from common.schemas.spec import AgentSpec
from tui.services.pending import LIVE

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A short folder under /tmp (paths stay short, and the same length on every machine)."""
    root = Path(tempfile.mkdtemp(prefix="t", dir="/tmp"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def workspace(scratch: Path) -> Path:
    """``PROJECT/.claude-agent/ws`` with its ``logs`` folder, as the daemon lays it out."""
    root = scratch / "proj" / ".claude-agent" / "ws"
    (root / "logs").mkdir(parents=True)
    return root


@pytest.fixture
def demo_spec(scratch: Path) -> AgentSpec:
    """The demo project (a fresh git repository) and its spec, on the embedded model, HITL."""
    return prepare_demo(scratch / "demo", auto_accept=False)


@pytest.fixture
async def daemon(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """A real daemon for this test's HARNESS_HOME; its agents are stopped afterwards."""
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    await lifecycle.start_daemon()
    try:
        yield
    finally:
        async with DaemonClient.connect() as client:
            for info in await client.list_agents():
                if info.status in LIVE:
                    await client.stop(info.name)
        await lifecycle.stop_daemon()


@pytest.fixture
async def sleeping_agent_info(
    scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[AgentInfo]:
    """A real daemon with one agent (the demo's spec) whose process only sleeps."""
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    sleeper = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(120)'"
    await lifecycle.start_daemon(daemon_args=["--agent-command", sleeper])
    try:
        async with DaemonClient.connect() as client:
            info = await client.start(prepare_demo(scratch / "demo", auto_accept=False))
        yield info
    finally:
        async with DaemonClient.connect() as client:
            for agent in await client.list_agents():
                if agent.status in LIVE:
                    await client.stop(agent.name)
        await lifecycle.stop_daemon()


@pytest.fixture
def sleeping_agent(sleeping_agent_info: AgentInfo) -> str:
    """The name of :func:`sleeping_agent_info`'s agent."""
    return sleeping_agent_info.name

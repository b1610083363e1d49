"""Fixtures for the TUI tests: workspaces with real checkpoint and log files, a test app
wired to a fake daemon link, and (for the slow tests) a real daemon with real agents."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from agent.control.demo import prepare_demo
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
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

"""The daemon as a real process: started detached, refused twice, killed, replaced."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running, start_daemon, stop_daemon
from agent.daemon.procs import is_alive
from common.paths import daemon_log_path, daemon_status_path, socket_path
from common.schemas.daemon_state import AgentStatus, DaemonStatusFile

from .conftest import FAKE_AGENT, REPO_ROOT, MakeSpec
from .helpers import process_exit

DAEMON_ARGS = ["--agent-command", f"{sys.executable} {FAKE_AGENT} {{workspace}}"]


@pytest.fixture
async def daemon_process(harness_home: Path) -> AsyncIterator[DaemonStatusFile]:
    """A ``python -m agent.daemon`` started by ``start_daemon``; killed if a test left it."""
    status = await start_daemon(daemon_args=DAEMON_ARGS)
    yield status
    running = daemon_running()
    if running is not None:
        os.kill(running.pid, signal.SIGKILL)


async def test_start_daemon_starts_a_detached_daemon(
    daemon_process: DaemonStatusFile, harness_home: Path
) -> None:
    assert daemon_process.pid != os.getpid()
    assert os.getsid(daemon_process.pid) == daemon_process.pid
    assert daemon_running() == daemon_process
    assert "listening on" in daemon_log_path(harness_home).read_text()
    assert await start_daemon() == daemon_process  # already running: nothing new

    assert await stop_daemon() is True

    assert daemon_running() is None
    assert not daemon_status_path(harness_home).exists()
    assert await stop_daemon() is False


async def test_a_second_daemon_process_refuses_with_one_line(
    daemon_process: DaemonStatusFile, harness_home: Path
) -> None:
    second = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent.daemon",
        cwd=REPO_ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(second.communicate(), 30)

    assert second.returncode == 1
    sock = socket_path(harness_home)
    assert stderr.decode() == f"daemon already running (pid {daemon_process.pid}, socket {sock})\n"
    assert stdout == b""
    assert daemon_running() == daemon_process


async def test_an_agent_outlives_a_killed_daemon_and_is_adopted(
    daemon_process: DaemonStatusFile, harness_home: Path, make_spec: MakeSpec
) -> None:
    async with DaemonClient.connect() as client:
        agent = await client.start(make_spec("idle"))
    assert agent.pid is not None

    os.kill(daemon_process.pid, signal.SIGKILL)
    await process_exit(daemon_process.pid)
    assert daemon_running() is None
    assert socket_path(harness_home).exists()  # stale, left behind
    assert is_alive(agent.pid, None)

    replacement = await start_daemon(daemon_args=DAEMON_ARGS)
    assert replacement.pid != daemon_process.pid
    async with DaemonClient.connect() as client:
        [adopted] = await client.list_agents()
        assert (adopted.name, adopted.pid, adopted.status) == (
            "agent_1",
            agent.pid,
            AgentStatus.RUNNING,
        )
        stopped = await client.stop("agent_1")

    assert stopped.status is AgentStatus.STOPPED
    assert not is_alive(agent.pid, None)
    assert await stop_daemon() is True

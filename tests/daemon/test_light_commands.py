"""The light commands stay light: ``harness list``, ``status`` and ``approve`` load none of
the heavy libraries (the Claude SDK, MCP, textual, python-gitlab, aiohttp,
prometheus-client, OpenTelemetry, the policy's tree-sitter parser).

Each command runs as a real process against a real daemon, with an agent (the fake
one) waiting at a checkpoint, so every path the command takes is walked; the modules
it loaded are read from ``-X importtime``, which names each import as it happens.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running, start_daemon
from common.schemas.daemon_state import AgentStatus, DaemonStatusFile

from .conftest import FAKE_AGENT, REPO_ROOT, MakeSpec
from .helpers import WAIT, event_where, snapshot

HEAVY = (
    "claude_agent_sdk",
    "mcp",
    "textual",
    "textual_serve",
    "gitlab",
    "aiohttp",
    "prometheus_client",
    "opentelemetry",
    "tree_sitter",  # the command policy's parser: reading the policy's counts needs none of it
)
#: Modules ``harness approve`` does without: the daemon signs and writes the answer, so
#: the command builds no schema of the whole protocol or of checkpoints, and runs no loop.
NOT_FOR_AN_ANSWER = (
    "asyncio",
    "pydantic",
    "common.schemas.protocol",
    "common.schemas.checkpoint",
    "common.schemas.spec",
    "agent.daemon.client",
)
IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)$", re.MULTILINE)


@pytest.fixture
async def daemon_process(harness_home: object) -> AsyncIterator[DaemonStatusFile]:
    """A daemon process running the fake agent; killed when the test ends."""
    command = f"{sys.executable} {FAKE_AGENT} {{workspace}}"
    status = await start_daemon(daemon_args=["--agent-command", command])
    yield status
    running = daemon_running()
    if running is not None:
        os.kill(running.pid, signal.SIGKILL)


def loaded_by(*args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """``harness ARGS`` in its own process, and the modules it imported (each package too)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent.control", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    return done, set(IMPORTED.findall(done.stderr))


def packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_the_pattern_sees_an_import_of_a_heavy_library() -> None:
    """The check itself: a process that imports aiohttp is seen doing so."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import aiohttp"],
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=True,
    )
    assert "aiohttp" in {name.split(".")[0] for name in IMPORTED.findall(done.stderr)}


async def test_list_status_and_approve_load_no_heavy_library(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec
) -> None:
    async with DaemonClient.connect() as client:
        frames = client.subscribe()
        await snapshot(frames)
        async with DaemonClient.connect() as commands:
            agent = await commands.start(make_spec("idle"))
        assert agent.pid is not None
        await event_where(frames, lambda e: e.agent.phase is not None)  # its handlers are set
        os.kill(agent.pid, signal.SIGUSR1)  # the fake agent writes a pending checkpoint
        await event_where(frames, lambda e: e.agent.status is AgentStatus.WAITING)

    runs = {
        " ".join(args): await asyncio.to_thread(loaded_by, *args)
        for args in (["list"], ["status"], ["status", agent.name], ["approve", agent.name])
    }

    for command, (done, modules) in runs.items():
        assert done.returncode == 0, f"harness {command}: {done.stderr[-500:]}"
        assert "agent" in packages(modules), f"harness {command}: importtime saw our modules"
        assert sorted(packages(modules) & set(HEAVY)) == [], f"harness {command} loaded them"
    done, modules = runs[f"approve {agent.name}"]
    assert done.stdout.endswith("approved\n")
    assert "agent.daemon.answer_client" in modules
    assert sorted(modules & set(NOT_FOR_AN_ANSWER)) == []

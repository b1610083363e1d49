"""Waiting on subscription frames instead of sleeping."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from watchfiles import awatch

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running
from common.paths import daemon_log_path
from common.schemas.daemon_state import DaemonStatusFile
from common.schemas.protocol import AgentEvent, AgentInfo
from common.schemas.spec import AgentSpec

Frames = AsyncIterator[list[AgentInfo] | AgentEvent]

#: Generous: a slow CI machine must not fail a test that waits on a real process.
WAIT = 15.0


async def snapshot(frames: Frames) -> list[AgentInfo]:
    """The first frame of a subscription: the agent list."""
    first = await asyncio.wait_for(anext(frames), WAIT)
    assert isinstance(first, list)
    return first


async def event_where(frames: Frames, matches: Callable[[AgentEvent], bool]) -> AgentEvent:
    """The first event for which ``matches`` holds (earlier ones are skipped)."""

    async def scan() -> AgentEvent:
        async for frame in frames:
            assert isinstance(frame, AgentEvent)
            if matches(frame):
                return frame
        raise AssertionError("the subscription ended")

    return await asyncio.wait_for(scan(), WAIT)


async def process_exit(pid: int, timeout: float | None = None) -> None:
    """Wait until ``pid`` has exited: its pidfd becomes readable then (no polling)."""
    loop = asyncio.get_running_loop()
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return  # exited and reaped already
    gone = asyncio.Event()
    loop.add_reader(fd, gone.set)
    try:
        await asyncio.wait_for(gone.wait(), WAIT if timeout is None else timeout)
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def start_ready(client: DaemonClient, spec: AgentSpec) -> AgentInfo:
    """Start a fake agent and return once it reported its phase.

    The fake agent writes its phase after installing its signal handlers, so
    from then on a test may signal it.
    """
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        agent = await client.start(spec)
        await event_where(
            frames, lambda e: e.agent.name == agent.name and e.agent.phase is not None
        )
    return agent


async def until_answering(home: Path, daemon: subprocess.Popen[bytes]) -> DaemonStatusFile:
    """The status file of ``daemon`` once its socket answers (it writes the file then)."""
    async with asyncio.timeout(WAIT):
        async for _ in awatch(
            home, debounce=50, step=10, rust_timeout=200, yield_on_timeout=True, recursive=False
        ):
            status = daemon_running(home)
            if status is not None:
                return status
            assert daemon.poll() is None, daemon_log_path(home).read_text()
    raise AssertionError("watching the daemon's folder ended")

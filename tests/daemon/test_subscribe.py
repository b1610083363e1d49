"""A subscription: one snapshot, then an event per change, from files and process exits."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from common.errors import DaemonError, ProtocolError
from common.schemas.agent_state import Phase
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.daemon_state import AgentStatus

from .conftest import MakeSpec, make_supervisor
from .helpers import event_where, snapshot


async def test_events_follow_the_agent_from_start_to_removal(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        assert await snapshot(frames) == []

        agent = await client.start(make_spec("idle"))
        started = await event_where(frames, lambda e: e.agent.phase is Phase.CODING)
        assert started.agent.name == "agent_1" and started.agent.status is AgentStatus.RUNNING
        assert agent.pid is not None

        os.kill(agent.pid, signal.SIGUSR1)
        waiting = await event_where(frames, lambda e: e.agent.status is AgentStatus.WAITING)
        assert waiting.agent.pending_checkpoint is CheckpointType.ISSUE_SELECTION

        await client.set_auto_accept("agent_1", True)
        switched = await event_where(frames, lambda e: e.agent.auto_accept)
        assert switched.agent.status is AgentStatus.WAITING

        os.kill(agent.pid, signal.SIGUSR2)
        done = await event_where(frames, lambda e: e.agent.status is AgentStatus.DONE)
        assert done.agent.pending_checkpoint is None and not done.removed

        await client.remove("agent_1")
        removed = await event_where(frames, lambda e: e.removed)
        assert removed.agent.name == "agent_1"


async def test_the_snapshot_lists_existing_agents(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    await client.start(make_spec("idle"))

    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        agents = await snapshot(frames)

    assert [agent.name for agent in agents] == ["agent_1"]


async def test_an_event_is_sent_only_when_the_view_changed(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await client.start(make_spec("idle"))
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        await event_where(frames, lambda e: e.agent.phase is Phase.CODING)
        assert agent.pid is not None
        (agent.workspace / "notes.txt").write_text("not a state file")  # wakes the watcher
        os.kill(agent.pid, signal.SIGUSR1)

        event = await event_where(frames, lambda e: True)

    assert event.agent.status is AgentStatus.WAITING


async def test_a_subscribed_connection_refuses_other_requests(
    client: DaemonClient,
) -> None:
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)

        with pytest.raises(ProtocolError, match="carries a subscription"):
            await watcher.list_agents()


async def test_the_stream_ends_with_an_error_when_the_daemon_stops(
    daemon: DaemonServer, client: DaemonClient
) -> None:
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)

        await client.shutdown()

        with pytest.raises(DaemonError, match="closed the connection"):
            await anext(frames)


async def test_a_child_exit_is_noticed_without_pidfd(
    harness_home: Path, make_spec: MakeSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pidfd(pid: int, flags: int = 0) -> int:
        raise OSError(38, "Function not implemented")

    monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    server = DaemonServer(make_supervisor(harness_home), harness_home)
    await server.start()
    try:
        async with DaemonClient.connect() as client, DaemonClient.connect() as watcher:
            frames = watcher.subscribe()
            await snapshot(frames)
            await client.start(make_spec("crash"))
            event = await event_where(frames, lambda e: e.agent.status is AgentStatus.FAILED)
    finally:
        await server.close()

    assert event.agent.reason == "agent process died without an exit status"

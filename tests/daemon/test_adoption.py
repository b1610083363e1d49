"""Agents outlive their daemon and are adopted by the next one."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from agent.daemon.client import DaemonClient
from agent.daemon.procs import is_alive
from agent.daemon.server import DaemonServer
from common.atomic import read_model, write_model
from common.paths import daemon_state_path
from common.schemas.daemon_state import AgentStatus, DaemonState

from .conftest import MakeSpec, make_supervisor
from .helpers import event_where, snapshot, start_ready


async def test_the_next_daemon_adopts_a_live_agent_and_notices_its_exit(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    first = DaemonServer(make_supervisor(harness_home), harness_home)
    await first.start()
    async with DaemonClient.connect() as client:
        agent = await start_ready(client, make_spec("idle"))
        await client.shutdown()
    await first.close()
    assert agent.pid is not None and is_alive(agent.pid, None)

    second = DaemonServer(make_supervisor(harness_home), harness_home)
    await second.start()
    try:
        async with DaemonClient.connect() as watcher:
            frames = watcher.subscribe()
            [adopted] = await snapshot(frames)
            assert (adopted.name, adopted.pid) == ("agent_1", agent.pid)
            assert adopted.status is AgentStatus.RUNNING

            os.kill(agent.pid, signal.SIGUSR2)
            done = await event_where(frames, lambda e: e.agent.status is not AgentStatus.RUNNING)
    finally:
        await second.close()

    assert done.agent.status is AgentStatus.DONE


async def test_an_adopted_agent_can_be_stopped(harness_home: Path, make_spec: MakeSpec) -> None:
    first = DaemonServer(make_supervisor(harness_home), harness_home)
    await first.start()
    async with DaemonClient.connect() as client:
        agent = await client.start(make_spec("idle"))
    await first.close()

    second = DaemonServer(make_supervisor(harness_home), harness_home)
    await second.start()
    try:
        async with DaemonClient.connect() as client:
            stopped = await client.stop("agent_1")
    finally:
        await second.close()

    assert stopped.status is AgentStatus.STOPPED
    assert agent.pid is not None and not is_alive(agent.pid, None)


async def test_a_reused_pid_is_not_mistaken_for_the_agent(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    first = DaemonServer(make_supervisor(harness_home), harness_home)
    await first.start()
    async with DaemonClient.connect() as client:
        agent = await client.start(make_spec("crash"))
    await first.close()
    state = read_model(daemon_state_path(harness_home), DaemonState)
    record = state.agents[0].model_copy(update={"pid": os.getpid()})  # alive, other start time
    write_model(daemon_state_path(harness_home), state.model_copy(update={"agents": [record]}))

    second = DaemonServer(make_supervisor(harness_home), harness_home)
    await second.start()
    try:
        async with DaemonClient.connect() as client:
            [info] = await client.list_agents()
    finally:
        await second.close()

    assert agent.pid != os.getpid()
    assert info.status is AgentStatus.FAILED

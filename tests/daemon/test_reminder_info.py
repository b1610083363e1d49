"""The daemon's agent info carries the spec's reminder period, so clients remind too."""

from __future__ import annotations

import os
import signal

from agent.daemon.client import DaemonClient
from common.schemas.daemon_state import AgentStatus
from common.schemas.notify import CheckpointTimeout

from .conftest import MakeSpec
from .helpers import event_where, snapshot


async def test_a_waiting_agent_reports_how_often_its_checkpoint_is_reminded(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    patience = CheckpointTimeout(minutes=30, then="stop", remind_every_minutes=0.25)
    spec = make_spec("idle").model_copy(update={"checkpoint_timeout": patience})
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        agent = await client.start(spec)
        assert agent.remind_every_minutes == 0.25
        assert agent.pid is not None
        await event_where(frames, lambda e: e.agent.phase is not None)  # its handlers are set

        os.kill(agent.pid, signal.SIGUSR1)  # the fake agent writes a pending checkpoint
        waiting = await event_where(frames, lambda e: e.agent.status is AgentStatus.WAITING)

    assert waiting.agent.remind_every_minutes == 0.25
    assert waiting.agent.pending_since is not None  # where the client counts from


async def test_no_reminder_period_without_one_in_the_spec(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    no_reminders = CheckpointTimeout(minutes=30, then="default")
    await client.start(make_spec("idle"))
    await client.start(
        make_spec("stubborn").model_copy(update={"checkpoint_timeout": no_reminders})
    )

    agents = await client.list_agents()

    assert [agent.remind_every_minutes for agent in agents] == [None, None]

"""The daemon tells an agent who stopped it: a note for its pid, before the signal."""

from __future__ import annotations

import getpass

from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from common.atomic import read_model
from common.workspace.stop_note import NOTE_NAME, StopNote

from .conftest import MakeSpec
from .helpers import start_ready


async def test_a_stop_leaves_the_agent_a_note_of_who_asked(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await start_ready(client, make_spec("idle"))

    await client.stop(agent.name, client="tui")

    note = read_model(agent.workspace / NOTE_NAME, StopNote)
    assert (note.pid, note.by) == (agent.pid, f"tui:{getpass.getuser()}")

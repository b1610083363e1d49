"""A person's ``harness stop`` is told as such: the agent's webhook names who stopped it,
and ``harness status`` says so too (a real daemon, the real agent on the demo)."""

from __future__ import annotations

import asyncio
import getpass

import pytest

from tests.core.test_webhook import Receiver, until
from tests.e2e.agents import harness
from tests.e2e.test_checkpoint_timeout import demo_specs, until_status

pytestmark = pytest.mark.slow


async def test_the_webhook_names_who_stopped_the_agent(
    daemon_home: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver = Receiver()
    receiver.thread.start()
    monkeypatch.setenv("E2E_STOP_HOOK", receiver.url)
    try:
        specs, _ = demo_specs({"minutes": 60, "then": "stop"}, "E2E_STOP_HOOK")
        assert harness("run", "--specs", specs).returncode == 0
        await until_status("waiting")

        stopped = await asyncio.to_thread(harness, "stop", "agent_1")

        assert stopped.returncode == 0, stopped.stderr
        await until(lambda: "agent_ended" in receiver.events(), within=30)
        who = f"cli:{getpass.getuser()}"
        [ended] = [body for body in receiver.bodies if body["event"] == "agent_ended"]
        assert ended["outcome"] == f"stopped: stopped by {who}"
        assert ended["text"] == (f"agent_1 was stopped by {who} while project_verification waited")
        status = harness("status", "agent_1").stdout
        assert f"  exit:      continuing (stopped by {who})" in status, status
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()

"""Checkpoint timeouts through the ``harness`` command line: a real daemon, real agents,
a real local webhook receiver named by ``env:NAME`` (so the URL is in no file)."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path

import pytest

from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.milestone import FileMilestone
from common.workspace import checkpoints
from tests.core.test_webhook import FIELDS, Receiver
from tests.e2e.agents import harness

pytestmark = pytest.mark.slow


def demo_specs(timeout: dict[str, object], hook_variable: str) -> tuple[str, WorkspaceFiles]:
    """The demo without auto-accept, with ``checkpoint_timeout`` and the webhook; the
    ``--specs`` JSON and where its workspace will be."""
    root = Path(tempfile.mkdtemp(prefix="ct", dir="/tmp"))
    spec = prepare_demo(root / "demo", False)
    data = spec.model_dump(mode="json") | {
        "checkpoint_timeout": timeout,
        "notify": {"webhook": f"env:{hook_variable}"},
    }
    return json.dumps([data]), WorkspaceFiles(spec.project_dir / ".claude-agent")


def status_line(name: str = "agent_1") -> str:
    return harness("status", name).stdout.splitlines()[0]


async def until_status(word: str, within: float = 90.0) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        line = status_line()
        if f" {word} " in line:
            return line
        await asyncio.sleep(0.3)
    raise AssertionError(f"agent_1 never {word}: {harness('status', 'agent_1').stdout}")


def workspace_of(files: WorkspaceFiles) -> WorkspaceFiles:
    return WorkspaceFiles(next(files.root.iterdir()))


async def test_a_run_nobody_answers_is_decided_by_its_timeouts_to_done(
    daemon_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver = Receiver()
    receiver.thread.start()
    monkeypatch.setenv("E2E_CT_HOOK", receiver.url)  # the daemon (and so the agent) has it
    try:
        specs, under = demo_specs(
            {"minutes": 0.02, "then": "default", "remind_every_minutes": 0.012}, "E2E_CT_HOOK"
        )
        started = harness("run", "--specs", specs)
        assert started.returncode == 0, started.stderr
        await until_status("done", within=120)
        files = workspace_of(under)
        logged = checkpoints.history(files)
        assert len(logged) >= 8
        for entry in logged:
            assert entry.decision is not None and entry.decision.approved
            assert entry.decision.decided_by == "timeout", entry.id
            assert entry.decision.rule == "timeout after 0.02 min: default"
        milestone = read_model(files.milestone, FileMilestone)
        assert [issue.state for issue in milestone.issues] == ["closed"] * 3
        for _ in range(50):  # the end is posted as the process exits
            if "agent_ended" in receiver.events():
                break
            await asyncio.sleep(0.1)
        events = receiver.events()
        assert events.count("checkpoint_waiting") == len(logged)
        assert events.count("checkpoint_timeout") == len(logged)
        assert events.count("checkpoint_reminder") == len(logged)  # at 0.72 s of 1.2 s
        assert events[-1] == "agent_ended" and receiver.bodies[-1]["outcome"] == "done"
        assert all(set(sent) >= FIELDS for sent in receiver.bodies)
        assert {sent["agent"] for sent in receiver.bodies} == {"agent_1"}  # the daemon's name
        closures = [b for b in receiver.bodies if b["checkpoint"] and b["issue"] is not None]
        assert {b["issue"] for b in closures} >= {1, 2, 3}
        logs = harness("logs", "agent_1").stdout
        assert "by timeout" in logs and "(reminder)" in logs
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()


async def test_then_stop_stops_and_harness_resume_asks_the_same_checkpoint_again(
    daemon_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    receiver = Receiver()
    receiver.thread.start()
    monkeypatch.setenv("E2E_CT_STOP_HOOK", receiver.url)
    try:
        specs, under = demo_specs({"minutes": 0.1, "then": "stop"}, "E2E_CT_STOP_HOOK")
        assert harness("run", "--specs", specs).returncode == 0
        await until_status("stopped", within=60)
        files = workspace_of(under)
        waiting = checkpoints.pending(files)
        assert waiting is not None and waiting.id == "project_verification-0"
        status = harness("status", "agent_1").stdout
        assert "nobody answered project_verification in 0.1 min" in status, status

        resumed = harness("resume", "agent_1")
        assert resumed.returncode == 0, resumed.stderr
        deadline = time.monotonic() + 60
        while (
            harness("logs", "agent_1").stdout.count("resuming checkpoint project_verification-0")
            < 1
        ):
            assert time.monotonic() < deadline, harness("logs", "agent_1").stdout
            await asyncio.sleep(0.2)
        approved = harness("approve", "agent_1", "--checkpoint", "project_verification-0")
        assert approved.returncode == 0, approved.stderr
        # It continues: the next checkpoint is asked, nobody answers it, the agent stops there.
        await until_status("stopped", within=60)
        state = read_model(files.state, AgentState)
        assert state.phase is not Phase.PROJECT_VERIFICATION
        now = checkpoints.pending(files)
        assert now is not None and now.id != "project_verification-0"
        ends = [b for b in receiver.bodies if b["event"] == "agent_ended"]
        assert len(ends) == 2 and all(b["outcome"].startswith("stopped") for b in ends)
    finally:
        receiver.server.shutdown()
        receiver.server.server_close()

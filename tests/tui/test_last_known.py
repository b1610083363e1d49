"""The agent list painted at once from the last known state (issue 27, item 5).

A TUI keeps the daemon's list in ``$HARNESS_HOME/tui_agents.json``; the next one shows
those rows before the daemon answers, dimmed and marked "last known", and the daemon's
own list replaces them. A file that is not what a TUI writes is read as no list at all.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from common.schemas.daemon_state import AgentStatus
from tests.tui import samples
from tests.tui.conftest import REPO_ROOT
from tests.tui.fakes import agent_info
from tests.tui.helpers import (
    dialog_for,
    log_lines,
    make_app,
    status_text,
    wait_until,
    write_checkpoint,
)
from tui.app import HarnessApp
from tui.services.agent_cache import (
    MAX_BYTES,
    LastKnownRow,
    cache_path,
    read_last_known,
    write_last_known,
)
from tui.widgets.agent_list import COLUMN_KEYS, LAST_KNOWN, AgentList


def listed(app: HarnessApp) -> list[str]:
    table = app.running.query_one(AgentList)
    return [str(row.key.value) for row in table.ordered_rows]


def cell(app: HarnessApp, name: str, column: str) -> str:
    return str(app.running.query_one(AgentList).get_cell(name, column))


async def test_the_next_tui_paints_the_last_known_agents_before_the_daemon_answers(
    scratch: Path,
) -> None:
    workspaces = []
    for number in (1, 2):
        root = scratch / f"p{number}" / ".claude-agent" / "ws"
        (root / "logs").mkdir(parents=True)
        workspaces.append(root)
    agents = [
        agent_info("agent_1", workspaces[0]),
        agent_info("agent_2", workspaces[1], status=AgentStatus.DONE),
    ]
    agents[0].log_file.write_text("started\n")
    first, _ = make_app(agents)
    async with first.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: listed(first) == ["agent_1", "agent_2"], "the agents")
    assert cache_path().exists(), "kept when the TUI closed"

    moved_on = [agents[0].model_copy(update={"status": AgentStatus.STOPPED})]
    second, link = make_app(moved_on, silent=True)
    async with second.run_test(size=(80, 24)) as pilot:
        table = second.running.query_one(AgentList)
        await wait_until(pilot, lambda: listed(second) == ["agent_1", "agent_2"], "last known")
        assert table.last_known and table.border_subtitle == LAST_KNOWN
        assert cell(second, "agent_1", "status") == "running"
        assert "connecting to the daemon" in status_text(second)
        assert second.running.agents == {}, "nothing acts on rows the daemon did not send"

        link.answer()
        await wait_until(pilot, lambda: listed(second) == ["agent_1"], "the daemon's list")
        assert not table.last_known and not table.border_subtitle
        assert cell(second, "agent_1", "status") == "stopped"
        await wait_until(pilot, lambda: log_lines(second) == ["started"], "its log followed")


async def test_c_over_the_last_known_rows_opens_the_checkpoint_once_the_daemon_answers(
    workspace: Path,
) -> None:
    """A kept row says the agent waits before its checkpoint is read: ``c`` typed at once
    is never told that nothing waits; the dialog opens when the daemon's list comes."""
    checkpoint = samples.issue_closure()
    write_checkpoint(workspace, checkpoint)
    waiting = [agent_info("agent_1", workspace, status=AgentStatus.WAITING)]
    first, _ = make_app(waiting)
    async with first.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: listed(first) == ["agent_1"], "the agents")
    second, link = make_app(waiting, silent=True)
    async with second.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_until(pilot, lambda: listed(second) == ["agent_1"], "last known")
        await pilot.press("c")
        await pilot.pause()
        said = [note.message for note in second._notifications]
        assert "No checkpoint is waiting." not in said
        assert "Waiting for the daemon's list: the checkpoint opens when it comes." in said
        link.answer()
        await wait_until(pilot, dialog_for(second, checkpoint.id), "the dialog")


async def test_without_a_kept_list_the_first_paint_is_empty_as_before(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace)], silent=True)
    async with app.run_test(size=(80, 24)) as pilot:
        table = app.running.query_one(AgentList)
        await pilot.pause()
        assert listed(app) == [] and not table.last_known
        link.answer()
        await wait_until(pilot, lambda: listed(app) == ["agent_1"], "the daemon's list")


def row(name: str) -> LastKnownRow:
    return LastKnownRow(name, tuple(f"{name}:{key}" for key in COLUMN_KEYS))


def test_the_kept_list_reads_back_as_it_was_shown() -> None:
    shown = LastKnownRow("agent_1", tuple(f"⚑ waits 4m · — {key}" for key in COLUMN_KEYS))
    write_last_known([row("agent_2"), shown], COLUMN_KEYS)
    assert read_last_known(COLUMN_KEYS) == [row("agent_2"), shown]


READ_IN_A_NEW_PROCESS = """
from common.untrusted_text import _unicode_tables
from tui.services.agent_cache import read_last_known
from tui.widgets.agent_list import COLUMN_KEYS
rows = read_last_known(COLUMN_KEYS)
print(len(rows), _unicode_tables.cache_info().currsize)
"""


def test_reading_the_kept_list_builds_no_unicode_table() -> None:
    """Escaping text that is not ASCII builds a table of every code point once per process
    (some 300 ms): reading the list before the first paint must not, ``⚑`` and ``—`` in it
    or not (it once delayed the first paint by that much)."""
    shown = LastKnownRow("agent_1", tuple(f"⚑ — {key}" for key in COLUMN_KEYS))
    write_last_known([shown], COLUMN_KEYS)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    found = subprocess.run(
        [sys.executable, "-c", READ_IN_A_NEW_PROCESS],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout.split() == ["1", "0"]


@pytest.mark.parametrize("unescaped", ["\x1b[31mred", "a\nb", "\u202eevil", "\u3164"])
def test_a_kept_list_with_what_a_tui_escapes_is_no_list(unescaped: str) -> None:
    """A TUI writes every cell escaped: raw controls, bidi or invisible characters mean
    the file is not one it wrote, and nothing of it is shown."""
    hostile = LastKnownRow("agent_1", tuple(unescaped for _ in COLUMN_KEYS))
    write_last_known([row("agent_2"), hostile], COLUMN_KEYS)
    assert read_last_known(COLUMN_KEYS) == []


@pytest.mark.parametrize(
    "content",
    [
        b"not json",
        b"[]",
        json.dumps({"schema_version": 99, "columns": [], "rows": []}).encode(),
        json.dumps({"schema_version": 1, "columns": ["agent"], "rows": []}).encode(),
        json.dumps(
            {"schema_version": 1, "columns": list(COLUMN_KEYS), "rows": [{"name": 3}]}
        ).encode(),
        b" " * (MAX_BYTES + 1),
    ],
    ids=["not-json", "a-list", "another-version", "other-columns", "a-bad-row", "too-large"],
)
def test_a_file_that_is_not_a_kept_list_is_no_list(content: bytes) -> None:
    cache_path().write_bytes(content)
    assert read_last_known(COLUMN_KEYS) == []

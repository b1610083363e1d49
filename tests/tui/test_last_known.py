"""The agent list painted at once from the last known state (issue 27, item 5).

A TUI keeps the daemon's list in ``$HARNESS_HOME/tui_agents.json``; the next one shows
those rows before the daemon answers, dimmed and marked "last known", and the daemon's
own list replaces them. A file that is not what a TUI writes is read as no list at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.schemas.daemon_state import AgentStatus
from tests.tui.fakes import agent_info
from tests.tui.helpers import log_lines, make_app, status_text, wait_until
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


def test_the_kept_list_reads_back_escaped() -> None:
    hostile = LastKnownRow("agent_1", tuple("\x1b[31mred" for _ in COLUMN_KEYS))
    write_last_known([row("agent_2"), hostile], COLUMN_KEYS)
    found = read_last_known(COLUMN_KEYS)
    assert [r.name for r in found] == ["agent_2", "agent_1"]
    assert found[0] == row("agent_2")
    assert "\x1b" not in "".join(found[1].cells)


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

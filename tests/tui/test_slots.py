"""The TUI shows the slots of parallel work and says which issue a checkpoint is about.

The pure rows and tags first; then the running view at 80×24 fed agents with 0, 2 and
8 slots (the log, the status line and the keys stay on screen), a hostile title, the
clock ticking, and a slot's waiting checkpoint: its row marked, its dialog titled with
its issue. What the screen shows is read from the compositor's lines, not a snapshot.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Footer

from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    IssueClosureCheckpoint,
    RegressionApprovalCheckpoint,
)
from common.schemas.daemon_state import AgentStatus
from common.schemas.issue_slot import SlotStep
from common.schemas.protocol import AgentInfo, SlotInfo
from common.schemas.spend import Spend
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import ASK_FIRST, dialog, make_app, wait_until, write_checkpoint
from tests.tui.test_small_terminal import SMALL, uncovered
from tui import labels
from tui.app import HarnessApp
from tui.widgets.agent_list import AgentList
from tui.widgets.log_view import LogView
from tui.widgets.slot_view import SlotView, slot_row, slot_rows
from tui.widgets.status_bar import StatusBar

NOW = datetime(2026, 11, 26, 18, 0, tzinfo=UTC)
HOSTILE = "Wrap \x1b[2J [bold]text[/bold] \u202eevil\u200b"
HOSTILE_SHOWN = "Wrap \\x1b[2J [bold]text[/bold] <U+202E>evil<U+200B>"
RAW = ("\x1b", "\u202e", "\u200b")
STEPS = list(SlotStep)


def slot(
    iid: int,
    step: SlotStep = SlotStep.CODING,
    *,
    started: datetime = NOW - timedelta(minutes=2),
    **extra: Any,
) -> SlotInfo:
    return SlotInfo.model_validate({"iid": iid, "step": step, "started_at": started, **extra})


def eight(waiting: int | None = None) -> list[SlotInfo]:
    return [slot(iid, STEPS[iid % len(STEPS)], waiting=iid == waiting) for iid in range(1, 9)]


def about_issue(checkpoint: Checkpoint, iid: int) -> Checkpoint:
    """``checkpoint`` (a closure or a regression) as one of issue ``iid``'s slot asked it."""
    assert isinstance(checkpoint, IssueClosureCheckpoint | RegressionApprovalCheckpoint)
    context = checkpoint.context.model_copy(update={"issue_iid": iid})
    return checkpoint.model_copy(update={"context": context})


# --- the rows, the list's tag, the dialog's title: pure -----------------------------------


def test_a_row_gives_the_issue_its_step_time_and_spend() -> None:
    spend = Spend(sessions=2, tokens_in=12_000, tokens_out=3400, cost_usd=0.12)
    started = NOW - timedelta(minutes=2, seconds=5)

    row = slot_row(slot(3, SlotStep.CLOSURE, started=started, spend=spend), NOW, 3).plain

    assert row == "  #3   closure      2m 05s  $0.12   12k/3.4k"


def test_a_row_says_its_conflicts_that_it_waits_and_shows_its_title_as_text() -> None:
    shown = slot(12, conflicts=2, waiting=True, title=HOSTILE)

    row = slot_row(shown, NOW, 3).plain

    assert row.startswith("⏸ #12  coding")
    assert "  ⚠ 2 conflicts  waiting for you  " in row
    assert row.endswith(HOSTILE_SHOWN), "escaped, and the markup left as the text it is"
    assert not any(char in row for char in RAW)
    assert "⚠ 1 conflict " in slot_row(slot(1, conflicts=1, title="t"), NOW, 2).plain


def test_eight_slots_in_six_rows_name_the_rest_and_never_hide_the_waiting_one() -> None:
    lines = slot_rows(eight(waiting=8), NOW, 6).plain.splitlines()

    assert len(lines) == 6
    assert [
        line.split()[0] if not line.startswith("⏸") else line.split()[1] for line in lines[:5]
    ] == [
        "#1",
        "#2",
        "#3",
        "#4",
        "#8",
    ]
    assert lines[4].startswith("⏸ #8")
    assert lines[5] == "  +3 more: #5 selection, #6 coding, #7 regression"


def test_slots_that_fit_get_a_row_each_and_no_count() -> None:
    lines = slot_rows(eight(), NOW, 8).plain.splitlines()

    assert [line.split()[0] for line in lines] == [f"#{iid}" for iid in range(1, 9)]


def test_the_list_row_tags_the_slots_the_waiting_one_always_named() -> None:
    assert labels.slot_tag([]) == ""
    two = [slot(1), slot(4, SlotStep.CLOSURE, waiting=True)]
    assert labels.slot_tag(two) == "[#1 coding, #4 closure ⏸]"
    assert labels.slot_tag(eight()[:3]) == "[#1 coding, #2 regression, #3 closure]"
    assert labels.slot_tag(eight(waiting=8)) == "[#1 coding, #8 closure ⏸ +6]"
    assert labels.slot_tag(eight()[:4]) == "[#1 coding, #2 regression +2]"


@pytest.mark.parametrize(
    ("checkpoint", "title"),
    [
        (
            about_issue(samples.issue_closure("issue_closure-issue3-2"), 3),
            "ISSUE CLOSURE — ISSUE #3",
        ),
        (
            about_issue(samples.regression_approval("regression_approval-issue5-1"), 5),
            "REGRESSION APPROVAL — ISSUE #5",
        ),
        (samples.issue_closure("issue_closure-4"), "ISSUE CLOSURE — ISSUE #1"),
        (samples.mr_review("mr_review-9"), "MR REVIEW"),
    ],
    ids=["slot-closure", "slot-regression", "serial-closure", "run-wide"],
)
def test_a_checkpoint_title_names_the_issue_it_is_about(checkpoint: Checkpoint, title: str) -> None:
    assert labels.checkpoint_title(checkpoint) == title


# --- the running view at 80×24 -------------------------------------------------------------


def parallel_agent(workspace: Path, slots: list[SlotInfo], **extra: Any) -> AgentInfo:
    info = agent_info("agent_1", workspace, phase=Phase.ISSUE_SELECTION, **extra)
    return info.model_copy(update={"slots": slots})


def screen_lines(screen: Screen[Any]) -> list[str]:
    """What the screen shows, a line per terminal row (as the compositor draws it)."""
    return [strip.text for strip in screen._compositor.render_strips()]


def slot_lines(app: HarnessApp) -> list[str]:
    view = app.running.query_one(SlotView)
    lines = screen_lines(app.running)
    return lines[view.region.y : view.region.bottom]


async def selected(app: HarnessApp, pilot: Any) -> None:
    await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
    await pilot.pause()


@pytest.mark.parametrize("count", [0, 2, 8])
async def test_the_slot_rows_fit_80x24_and_leave_the_log_status_and_keys_on_screen(
    workspace: Path, count: int
) -> None:
    slots = [
        slot(iid, STEPS[iid % len(STEPS)], started=labels.now()) for iid in range(1, count + 1)
    ]
    app, _ = make_app([parallel_agent(workspace, slots)])
    async with app.run_test(size=SMALL) as pilot:
        await selected(app, pilot)
        view = app.running.query_one(SlotView)
        shown = slot_lines(app)
        if count == 0:
            assert not view.display and view.region.height == 0, "no slots: no room taken"
            assert " slot" not in "\n".join(screen_lines(app.running))
        elif count == 2:
            assert [line.split()[0] for line in shown] == ["#1", "#2"]
            assert "regression" in shown[1] and "0m 0" in shown[0]
        else:
            assert len(shown) == SMALL[1] // 4, "a quarter of the screen"
            assert shown[-1].strip() == "+3 more: #6 coding, #7 regression, #8 closure"
        screen = app.running
        assert screen.query_one(LogView).region.height >= 7, "the log keeps room to read"
        for part in (screen.query_one(StatusBar), screen.query_one(Footer)):
            assert uncovered(screen, part)
            assert part.region.bottom <= SMALL[1]
        phase = screen_lines(screen)[screen.query_one("#phase").region.y]
        assert phase.rstrip().endswith(f"issue selection · {count} slots") is (count > 0), phase


async def test_a_hostile_title_shows_escaped_and_as_text(workspace: Path) -> None:
    slots = [slot(1, title=HOSTILE, started=labels.now()), slot(2, title="[b]x[/b]")]
    app, _ = make_app([parallel_agent(workspace, slots)])
    async with app.run_test(size=(120, 30)) as pilot:
        await selected(app, pilot)
        shown = slot_lines(app)
        assert shown[0].rstrip().endswith(HOSTILE_SHOWN)
        assert shown[1].rstrip().endswith("[b]x[/b]")
        assert not any(char in "\n".join(screen_lines(app.running)) for char in RAW)


async def test_the_slots_times_tick(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [NOW]
    monkeypatch.setattr(labels, "now", lambda: clock[0])
    app, _ = make_app([parallel_agent(workspace, [slot(1)])])
    async with app.run_test(size=SMALL) as pilot:
        await selected(app, pilot)
        assert "2m 00s" in slot_lines(app)[0]
        clock[0] = NOW + timedelta(seconds=7)
        await wait_until(pilot, lambda: "2m 07s" in slot_lines(app)[0], "the clock to tick")


async def test_an_agent_without_slots_hides_them_when_selected_after_one_with(
    workspace: Path, scratch: Path
) -> None:
    other = scratch / "other" / "ws"
    (other / "logs").mkdir(parents=True)
    plain = agent_info("agent_2", other).model_copy(update={"spec_file": other / "b.md"})
    app, _ = make_app([parallel_agent(workspace, eight()), plain])
    async with app.run_test(size=SMALL) as pilot:
        await selected(app, pilot)
        view = app.running.query_one(SlotView)
        assert view.display
        app.running.query_one(AgentList).select("agent_2")
        await wait_until(pilot, lambda: not view.display, "the slots to go")
        assert view.region.height == 0


async def test_a_slots_waiting_checkpoint_marks_its_row_and_its_dialog_names_the_issue(
    workspace: Path,
) -> None:
    checkpoint = about_issue(samples.issue_closure("issue_closure-issue3-2"), 3)
    write_checkpoint(workspace, checkpoint)
    slots = [
        slot(1, started=labels.now()),
        slot(3, SlotStep.CLOSURE, waiting=True, started=labels.now()),
        slot(4, started=labels.now()),
    ]
    info = parallel_agent(
        workspace, slots, status=AgentStatus.WAITING, pending=CheckpointType.ISSUE_CLOSURE
    )
    app, _ = make_app([info], settings=ASK_FIRST)
    async with app.run_test(size=SMALL) as pilot:
        await selected(app, pilot)
        rows = slot_lines(app)
        assert [row.strip().startswith("⏸ #") for row in rows] == [False, True, False]
        assert "waiting for you" in rows[1] and "waiting" not in rows[0] + rows[2]
        agents = app.running.query_one(AgentList)
        assert "#3 closure ⏸" in agents.get_cell("agent_1", "phase").plain
        toasts = [str(note.message) for note in app._notifications]
        assert any("waits at issue_closure (issue #3)" in text for text in toasts), toasts
        await pilot.press("c")
        await wait_until(pilot, lambda: dialog(app) is not None, "the dialog")
        title = "HITL CHECKPOINT: ISSUE CLOSURE — ISSUE #3"
        await wait_until(pilot, lambda: title in "\n".join(screen_lines(app.screen)), title)


async def test_a_taller_terminal_gives_every_slot_its_row(workspace: Path) -> None:
    app, _ = make_app([parallel_agent(workspace, eight())])
    async with app.run_test(size=SMALL) as pilot:
        await selected(app, pilot)
        assert slot_lines(app)[-1].strip().startswith("+3 more")
        await pilot.resize_terminal(80, 48)
        await wait_until(pilot, lambda: len(slot_lines(app)) == 8, "a row for each slot")
        assert [line.split()[0] for line in slot_lines(app)] == [f"#{n}" for n in range(1, 9)]

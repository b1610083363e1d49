"""Toasts that hide nothing and say each thing once (issue 27, item 2).

Over a dialog, a review or the remove question, notifications go to a line above the
box, never on it; a decision and the checkpoint the agent raises right after it are one
toast; a TUI that finds several checkpoints waiting says so in one toast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets._toast import Toast

from common.schemas.agent_state import Phase
from common.schemas.checkpoint import Checkpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import ASK_FIRST, dialog, dialog_for, make_app, wait_until, write_checkpoint
from tests.tui.test_small_terminal import SMALL, cells_showing, shown, uncovered
from tui.app import HarnessApp
from tui.modals.confirm import ConfirmScreen
from tui.modals.review.base import ReviewScreen
from tui.screens import desk
from tui.services import announcements
from tui.services.announcements import Raised
from tui.widgets.news_line import NewsLine


def waiting(name: str, workspace: Path, checkpoint: Checkpoint) -> AgentInfo:
    """``name`` waiting at ``checkpoint``, its file written."""
    write_checkpoint(workspace, checkpoint)
    return agent_info(
        name, workspace, status=AgentStatus.WAITING, phase=Phase.CODING, pending=checkpoint.type
    )


def toasts(app: HarnessApp) -> list[str]:
    """Every notification the app made so far (live ones)."""
    return [str(note.message) for note in app._notifications]


def news(screen: Screen[Any]) -> str:
    found = screen.query(NewsLine)
    return str(found.first().render()) if found else ""


BOXES = {"dialog": "#dialog", "review": "#review", "remove": "#confirm"}


@pytest.mark.parametrize("over", list(BOXES))
async def test_toasts_never_cover_an_open_dialog_review_or_question(
    workspace: Path, over: str
) -> None:
    checkpoint = samples.issue_closure()
    app, _ = make_app([waiting("agent_1", workspace, checkpoint)])
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        if over == "review":
            await pilot.press("r")
            await shown(pilot, ReviewScreen)
        elif over == "remove":
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.running, "back at the list")
            await pilot.press("d")
            await shown(pilot, ConfirmScreen)
        for n in range(6):
            app.notify(f"agent_{n + 2} waits at issue_closure — c or Enter answers", timeout=60)
        screen = app.screen
        await wait_until(pilot, lambda: len(toasts(app)) >= 6, "the notifications")
        await pilot.pause()
        box = screen.query_one(BOXES[over])
        assert uncovered(screen, box), "every cell of the box, its title too, shows the box"
        assert not [toast for toast in screen.query(Toast) if cells_showing(screen, toast)]
        await wait_until(pilot, lambda: "agent_7 waits" in news(screen), "the news line")
        line = screen.query_one(NewsLine)
        assert not line.region.overlaps(box.region)
        assert "(+5 more)" in news(screen)


async def test_a_toast_made_over_a_dialog_is_shown_by_the_view_below_once_it_closes(
    workspace: Path,
) -> None:
    checkpoint = samples.issue_closure()
    app, _ = make_app([waiting("agent_1", workspace, checkpoint)])
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        app.notify("the daemon restarted", timeout=60)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.running, "back at the list")

        def toast_shown() -> bool:
            return any("the daemon restarted" in str(t.render()) for t in app.screen.query(Toast))

        await wait_until(pilot, toast_shown, "the toast on the running view")


async def approve_once_announced(app: HarnessApp, pilot: Pilot[None], checkpoint_id: str) -> None:
    """Wait for the dialog and its announcement, forget the toasts so far, press Y."""
    await wait_until(pilot, dialog_for(app, checkpoint_id), "the dialog")
    await wait_until(pilot, lambda: bool(toasts(app)), "its announcement")
    app.clear_notifications()
    await pilot.press("y")


async def test_a_decision_and_the_agents_next_checkpoint_are_one_toast(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The merge window is about an agent that moves straight on; a loaded test machine
    # may take longer than it between the dialog closing and the pushed checkpoint.
    monkeypatch.setattr(desk, "DECISION_MERGE_S", 60.0)
    first, second = samples.spec_to_issues(), samples.issue_enrichment()
    app, link = make_app([waiting("agent_1", workspace, first)])
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await approve_once_announced(app, pilot, first.id)
        await wait_until(pilot, lambda: dialog(app) is None, "the dialog to close")
        link.push(waiting("agent_1", workspace, second))  # the agent moves straight on
        await wait_until(pilot, dialog_for(app, second.id), "the next dialog")
        await wait_until(pilot, lambda: bool(toasts(app)), "the toast")
        assert toasts(app) == ["agent_1: spec_to_issues approved; ⚑ now waits at issue_enrichment"]
        assert not app.running.desk.holds_decision("agent_1"), "nothing more to say"


async def test_a_decision_alone_is_one_toast(workspace: Path) -> None:
    checkpoint = samples.mr_phase_transition()
    app, _ = make_app([waiting("agent_1", workspace, checkpoint)])
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await approve_once_announced(app, pilot, checkpoint.id)
        await wait_until(pilot, lambda: bool(toasts(app)), "the decision's toast")
        assert toasts(app) == ["agent_1: mr_phase_transition approved"]
        assert not app.running.desk.holds_decision("agent_1"), "nothing more to say"


async def test_a_tui_finding_several_checkpoints_says_so_in_one_toast(scratch: Path) -> None:
    found = [samples.issue_closure(), samples.mr_review(), samples.spec_to_issues()]
    agents = []
    for number, checkpoint in enumerate(found, start=1):
        root = scratch / f"proj{number}" / ".claude-agent" / "ws"
        (root / "logs").mkdir(parents=True)
        agents.append(waiting(f"agent_{number}", root, checkpoint))
    app, _ = make_app(agents, settings=ASK_FIRST)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await wait_until(pilot, lambda: bool(toasts(app)), "the announcement")
        said = [text for text in toasts(app) if "⚑" in text]
    assert len(said) == 1, said
    assert said[0].startswith("⚑ 3 checkpoints wait: ")
    for name, checkpoint in zip(("agent_1", "agent_2", "agent_3"), found, strict=True):
        assert f"{name} at {checkpoint.type.value}" in said[0]
    assert said[0].endswith(" — c opens the oldest")


def test_a_summary_names_three_and_counts_the_rest() -> None:
    raised = [Raised(f"agent_{n}", "mr_review") for n in range(1, 6)]
    raised[0] = Raised("agent_1", "issue_closure", 3)
    text = announcements.summary_text(raised, auto_open=False)
    assert text == (
        "⚑ 5 checkpoints wait: agent_1 at issue_closure (issue #3), agent_2 at mr_review, "
        "agent_3 at mr_review, +2 more — c opens the oldest"
    )
    assert announcements.waiting_text(raised[0], auto_open=True) == (
        "⚑ agent_1 waits at issue_closure (issue #3)"
    )

"""Help (``?``, F1) on every screen, and a command palette that lists Quit once."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll

from common.schemas.agent_state import Phase
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.daemon_state import AgentStatus
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog_for, make_app, wait_until, write_checkpoint
from tests.tui.test_slots import screen_lines
from tui.help_text import CHECKPOINTS, PHASES
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.help import HelpScreen


def test_every_phase_and_every_checkpoint_is_explained() -> None:
    assert set(PHASES) == set(Phase)
    assert set(CHECKPOINTS) == set(CheckpointType)


def shown(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, HelpScreen)
    return screen.plain()


HEADINGS = {
    "Keys on this screen",
    "Reading a diff (dialog, review, full screen)",
    "Phases (in order)",
    "The checkpoints",
}


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
async def test_the_helps_second_column_never_wraps_back_to_the_first(
    workspace: Path, size: tuple[int, int]
) -> None:
    """Only a heading starts at the help's left edge: every other line, a wrapped
    meaning too, is indented under its column."""
    app, _ = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "the agent")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        screen = app.screen
        body = screen.query_one("#help-body", VerticalScroll)
        inside = body.content_region
        left, right, top, bottom = inside.x, inside.right, inside.y, inside.bottom
        at_the_edge: set[str] = set()
        while True:
            for line in screen_lines(screen)[top:bottom]:
                text = line[left:right].rstrip()
                if text and not text[0].isspace():
                    at_the_edge.add(text)
            if body.scroll_y >= body.max_scroll_y:
                break
            body.scroll_to(y=body.scroll_y + body.content_region.height, animate=False)
            await pilot.pause()
    assert at_the_edge <= HEADINGS, sorted(at_the_edge - HEADINGS)


async def test_question_mark_shows_the_running_views_keys_phases_and_checkpoints(
    workspace: Path,
) -> None:
    app, _ = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "the agent")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        text = shown(app)
        for words in ("Checkpoint", "Resume", "Remove ended", "New agent", "quit"):
            assert words in text
        assert "ISSUE CLOSURE" in text and "project verification" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.running, "the help to close")


async def test_f1_on_a_dialog_shows_the_dialogs_keys(workspace: Path) -> None:
    checkpoint = samples.issue_closure()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app([agent_info("agent_1", workspace, status=AgentStatus.WAITING)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        text = shown(app)
        assert "Approve" in text and "Reject" in text and "Review" in text
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointDialog), "the dialog")


async def test_the_palette_lists_quit_once(workspace: Path) -> None:
    app, _ = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "the agent")
        titles = [command.title for command in app.get_system_commands(app.screen)]
    assert sum(title.lower().startswith("quit") for title in titles) == 1
    assert "Help" in titles

"""Answers that cannot slip: a checkpoint announces itself and opens only when asked for.

With the default settings a new checkpoint rings the bell, sends the terminal's
desktop notification (OSC 9 and 777) and shows ⚑, but no dialog opens under the
person's fingers; ``c`` or Enter on the agent opens it, and Shift+Y approves as Y
does. With auto-open, the keys pressed as the dialog appears are ignored.
"""

from __future__ import annotations

from pathlib import Path

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import Checkpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.tui_settings import NotifySettings, TuiSettings
from common.workspace import checkpoints
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import (
    ASK_FIRST,
    dialog,
    dialog_for,
    make_app,
    status_text,
    wait_until,
    write_checkpoint,
)
from tui.modals.reason_prompt import ReasonPrompt
from tui.modals.review.base import ReviewScreen
from tui.widgets.agent_list import AgentList


def decided(workspace: Path) -> Checkpoint | None:
    found = checkpoints.current(WorkspaceFiles(workspace))
    return found if found is not None and found.status == "decided" else None


def waiting(workspace: Path, checkpoint: Checkpoint, name: str = "agent_1") -> list:  # type: ignore[type-arg]
    write_checkpoint(workspace, checkpoint)
    return [
        agent_info(
            name,
            workspace,
            status=AgentStatus.WAITING,
            phase=Phase.CODING,
            pending=checkpoint.type,
        )
    ]


async def test_a_new_checkpoint_announces_itself_and_waits_to_be_asked_for(
    workspace: Path,
) -> None:
    written: list[str] = []
    app, link = make_app([agent_info("agent_1", workspace)], settings=ASK_FIRST, terminal=written)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "the agent")
        checkpoint = samples.issue_closure()
        write_checkpoint(workspace, checkpoint)
        link.push(
            agent_info("agent_1", workspace, status=AgentStatus.WAITING, pending=checkpoint.type)
        )
        await wait_until(pilot, lambda: "1 checkpoint waits" in status_text(app), "the ⚑")
        await wait_until(pilot, lambda: bool(written), "the terminal notification")
        await pilot.press("y", "x", "1")  # keys meant for something else answer nothing
        await pilot.pause()
        assert dialog(app) is None and decided(workspace) is None
        row = app.running.query_one(AgentList).get_row("agent_1")
        assert "⚑" in str(row[1])
        await pilot.press("c")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog on c")
    terminal = "".join(written)
    assert terminal.startswith("\a")
    assert "\x1b]9;agent_1 waits at issue_closure\a" in terminal
    assert "\x1b]777;notify;coding-harness;agent_1 waits at issue_closure\a" in terminal


async def test_notifications_can_be_switched_off_and_enter_on_the_agent_opens_it(
    workspace: Path,
) -> None:
    written: list[str] = []
    quiet = TuiSettings(notify=NotifySettings(bell=False, osc=False, tmux=False))
    checkpoint = samples.mr_review()
    app, _ = make_app(waiting(workspace, checkpoint), settings=quiet, terminal=written)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: "1 checkpoint waits" in status_text(app), "the ⚑")
        app.running.query_one(AgentList).focus()
        await pilot.press("enter")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog on Enter")
    assert written == []


async def test_shift_y_approves(workspace: Path) -> None:
    checkpoint = samples.mr_phase_transition()
    app, _ = make_app(waiting(workspace, checkpoint), settings=ASK_FIRST)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: "1 checkpoint waits" in status_text(app), "the ⚑")
        await pilot.press("C")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("Y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None and result.decision.approved


async def test_a_key_pressed_as_an_auto_opened_dialog_appears_does_not_answer_it(
    workspace: Path,
) -> None:
    # A grace a loaded machine cannot use up between the dialog appearing and the key.
    settings = TuiSettings(auto_open=True, key_grace_s=3.0)
    app, link = make_app([agent_info("agent_1", workspace)], settings=settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "the agent")
        checkpoint = samples.issue_closure()
        write_checkpoint(workspace, checkpoint)
        link.push(
            agent_info("agent_1", workspace, status=AgentStatus.WAITING, pending=checkpoint.type)
        )
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog", timeout=5)
        await pilot.press("y")  # meant for the view below, already on its way
        await pilot.pause(0.1)
        assert decided(workspace) is None
        assert dialog(app) is not None
        await pilot.pause(3.0)
        await pilot.press("y")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")


async def test_an_empty_reason_is_allowed_and_esc_goes_back_to_the_dialog(
    workspace: Path,
) -> None:
    checkpoint = samples.spec_to_issues()
    app, _ = make_app(waiting(workspace, checkpoint))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonPrompt), "the prompt")
        await pilot.press("escape")
        await wait_until(pilot, dialog_for(app, checkpoint.id), "back at the dialog")
        assert decided(workspace) is None
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, ReasonPrompt), "the prompt")
        await pilot.press("enter")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None
    assert not result.decision.approved and result.decision.reason == ""


async def test_the_review_screen_starts_in_the_feedback_field(workspace: Path) -> None:
    checkpoint = samples.issue_closure()
    app, _ = make_app(waiting(workspace, checkpoint))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("R")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.press(*"use a regex", "ctrl+n")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None
    assert result.decision.reason == "use a regex"

"""A visible focus everywhere, 16-colour terminals included (issue 27, item 3).

In the spec_to_issues review the focus was a shade: digits typed for "depends on" went to
a field nobody could tell was focused. Every focusable widget of every dialog, review,
question and the running view must change at least a few cells when it takes the focus,
as a 16-colour terminal draws them (:mod:`tests.tui.focus_marks`), in the default theme
(brought down to 16 colours) and in Textual's ANSI theme (the terminal's own 16 colours).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot

from common.schemas.agent_state import Phase
from common.schemas.checkpoint import CheckpointType
from common.schemas.daemon_state import AgentStatus
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.focus_marks import unseen_focus
from tests.tui.helpers import make_app, wait_until, write_checkpoint
from tests.tui.modal_app import ModalApp
from tui.modals.auto_accept_rules import AutoAcceptRulesScreen
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.confirm import ConfirmScreen
from tui.modals.help import HelpScreen
from tui.modals.reason_prompt import ReasonPrompt
from tui.modals.review.base import ReviewScreen

THEMES = ["textual-dark", "ansi-dark"]
SMALL = (80, 24)


async def settle(pilot: Pilot[Any], app: App[Any], theme: str) -> None:
    app.theme = theme
    await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("kind", list(CheckpointType))
async def test_every_review_shows_where_the_keys_go(kind: CheckpointType, theme: str) -> None:
    app = ModalApp(samples.BUILDERS[kind](), review=True)
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await settle(pilot, app, theme)
        assert await unseen_focus(pilot, app.screen) == []


@pytest.mark.parametrize("theme", THEMES)
async def test_the_dialog_shows_where_the_keys_go(theme: str) -> None:
    app = ModalApp(samples.issue_closure())
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointDialog), "the dialog")
        await settle(pilot, app, theme)
        assert await unseen_focus(pilot, app.screen) == []


SCREENS: dict[str, tuple[tuple[str, ...], type[Any]]] = {
    "running view": ((), type(None)),
    "remove question": (("escape", "d"), ConfirmScreen),
    "auto-accept rules": (("escape", "A"), AutoAcceptRulesScreen),
    "reason prompt": (("n",), ReasonPrompt),
    "help": (("escape", "question_mark"), HelpScreen),
}


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("where", list(SCREENS))
async def test_the_running_view_and_its_questions_show_where_the_keys_go(
    workspace: Path, where: str, theme: str
) -> None:
    checkpoint = samples.issue_closure()
    write_checkpoint(workspace, checkpoint)
    info = agent_info(
        "agent_1",
        workspace,
        status=AgentStatus.WAITING,
        phase=Phase.CODING,
        pending=checkpoint.type,
    )
    info.log_file.write_text("09:00:01 phase → coding\n")
    app, _ = make_app([info])
    keys, screen = SCREENS[where]
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointDialog), "the dialog")
        await pilot.press(*keys)
        if not keys:
            await pilot.press("escape")
            screen = type(app.running)
        await wait_until(pilot, lambda: isinstance(app.screen, screen), where)
        await settle(pilot, app, theme)
        assert await unseen_focus(pilot, app.screen) == []

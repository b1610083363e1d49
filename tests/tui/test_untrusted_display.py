"""The TUI shows what the model wrote escaped, marked as the model's, and never as markup.

A hostile checkpoint (its summary, titles, file names and merge request carrying ANSI,
OSC, bidi and zero-width characters, and Textual markup) is written as the agent
writes it; the dialog, the review screens, the log pane, the agent list and the toasts
must show every such character as visible text.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Markdown, OptionList, Static

from common.schemas.agent_state import Phase
from common.schemas.checkpoint import Checkpoint, IssueRef
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog_for, log_lines, make_app, wait_until, write_checkpoint
from tui.app import HarnessApp
from tui.modals.review.base import ReviewScreen
from tui.widgets.agent_list import cells
from tui.widgets.diff_view import DiffView

PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED - press Y\x1b[0m\u202e\u200b"
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED - press Y\\x1b[0m<U+202E><U+200B>"
RAW = ("\x1b", "\x07", "\u202e", "\u200b")
MARKUP = "[bold red]I AM THE HARNESS[/bold red]"


def hostile_closure() -> Checkpoint:
    checkpoint = samples.issue_closure("issue_closure-7")
    context = checkpoint.context.model_copy(
        update={
            "issue_title": f"Add slugify {PAYLOAD}",
            "files_changed": ["notes/\x1b[2Jevil\u202etxt.md"],
            "model_summary": f"Done.\n{PAYLOAD}\n{MARKUP}",
            "diff": f"+{PAYLOAD}\n",
        }
    )
    return checkpoint.model_copy(
        update={
            "context": context,
            "if_approved": f"close {PAYLOAD}",
            "to_decide": f"Close {MARKUP}?",
        }
    )


def waiting_agent(workspace: Path) -> list[AgentInfo]:
    return [agent_info("agent_1", workspace, status=AgentStatus.WAITING, phase=Phase.CODING)]


def screen_text(app: HarnessApp) -> str:
    """Every Static on the screen on top, as the plain text it shows."""
    return "\n".join(str(widget.render()) for widget in app.screen.query(Static))


def no_raw(text: str) -> bool:
    return not any(char in text for char in RAW)


async def test_the_dialog_and_its_review_show_the_model_escaped_and_marked(workspace: Path) -> None:
    checkpoint = hostile_closure()
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(140, 48)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.pause()
        shown = screen_text(app)
        assert no_raw(shown)
        assert f"Issue #1: Add slugify {SHOWN}" in shown
        assert "Files: notes/\\x1b[2Jevil<U+202E>txt.md" in shown
        assert "Summary (the model's words):\n  [model] Done.\n" in shown
        assert f"  [model] {SHOWN}" in shown
        assert f"  [model] {MARKUP}" in shown  # literally: not read as markup
        assert f"→ close {SHOWN}" in shown
        assert MARKUP in shown  # the question too

        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.pause()
        shown = screen_text(app)
        assert no_raw(shown)
        view = app.screen.query_one("#diff", DiffView)
        rows = [row for page in view.pages() for row in page.plain_rows(1000)]
        assert rows == [f"+{SHOWN}"]  # the model's files


async def test_the_merge_requests_description_is_labelled_and_escaped(workspace: Path) -> None:
    checkpoint = samples.mr_review("mr_review-7")
    context = checkpoint.context.model_copy(
        update={"title": f"MR {PAYLOAD}", "description": f"# Approved\n{PAYLOAD}"}
    )
    checkpoint = checkpoint.model_copy(update={"context": context})
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(140, 48)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        await pilot.pause()
        shown = screen_text(app)
        assert no_raw(shown)
        assert f"MR {SHOWN}" in shown
        assert "Description (the model's words):" in shown
        markdown = app.screen.query_one("#description", Markdown)
        assert markdown.source == f"# Approved\n{SHOWN}"


async def test_issue_titles_in_a_choice_list_are_never_markup(workspace: Path) -> None:
    checkpoint = samples.issue_selection("issue_selection-7")
    context = checkpoint.context.model_copy(
        update={"open_issues": [IssueRef(iid=1, title=f"{MARKUP} {PAYLOAD}")], "recommended_iid": 1}
    )
    checkpoint = checkpoint.model_copy(update={"context": context})
    write_checkpoint(workspace, checkpoint)
    app, _ = make_app(waiting_agent(workspace))
    async with app.run_test(size=(140, 48)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewScreen), "the review")
        option = app.screen.query_one("#issues", OptionList).get_option_at_index(0)
        prompt = str(option.prompt)
        assert prompt.startswith(f"#1 {MARKUP} {SHOWN}")


async def test_the_log_pane_and_the_toasts_show_raw_bytes_escaped(workspace: Path) -> None:
    agents = waiting_agent(workspace)
    agents[0].log_file.write_bytes(
        b"09:00:00 [model] \x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED\x1b[0m\xe2\x80\xae\n"
    )
    app, _ = make_app(agents)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: bool(log_lines(app)), "the log")
        assert log_lines(app) == [
            "09:00:00   › model: \\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED"
            "\\x1b[0m<U+202E>"
        ]
        app.notify(f"{MARKUP} {PAYLOAD}", title=f"t{PAYLOAD}")
        app.screen.notify(f"{MARKUP} {PAYLOAD}")  # a widget's toast passes markup=True
        await pilot.pause()
        toasts = list(app._notifications)
        assert [toast.message for toast in toasts[-2:]] == [f"{MARKUP} {SHOWN}"] * 2
        assert not any(toast.markup for toast in toasts[-2:])
        assert toasts[-2].title == f"t{SHOWN}"


def test_an_agent_row_shows_its_names_escaped(workspace: Path) -> None:
    [info] = waiting_agent(workspace)
    info = info.model_copy(update={"name": f"a{PAYLOAD}", "spec_file": workspace / "s\u202egnp.md"})
    row = cells(info)
    assert row["agent"].plain == f"a{SHOWN}"
    assert row["spec"].plain == "s<U+202E>gnp.md"

"""A checkpoint's diff full screen (``f`` on a dialog or review): the whole terminal for it.

At 80×24 a dialog shows about ten lines of diff below what happened and the outcomes;
here the diff has every row but its title and key line. The same keys as where it was
opened: ``]``/``[`` files, ``p`` the pager; Esc or ``f`` goes back. It decides nothing:
a checkpoint decided elsewhere closes it with its dialog.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from common.workspace.diff_text import ReviewDiff
from tui.modals.diff_keys import FILE_KEYS, hand_to_pager
from tui.widgets.diff_view import DiffView


class DiffScreen(ModalScreen[None]):
    """One :class:`ReviewDiff`, full screen."""

    DEFAULT_CSS = """
    DiffScreen {
        align: center middle;
    }
    #diff-full {
        width: 100%;
        height: 100%;
        border: thick $accent;
        border-title-style: bold;
        border-title-color: $accent;
        border-subtitle-color: $text-muted;
        background: $surface;
    }
    #diff-full-body {
        height: 1fr;
    }
    #diff-full-notice {
        display: none;
        height: auto;
        color: $error;
        text-style: bold;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,f,F", "close", "Back"),
        *FILE_KEYS,
        Binding("p,P", "diff_pager", "Diff in your pager"),
        Binding("question_mark,f1", "app.help", "Help"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, review: ReviewDiff, *, title: str, subtitle: str = "") -> None:
        """
        Args:
            review: the diff, escaped and split.
            title: what the diff is of (the checkpoint's title), harness text.
            subtitle: who waits (agent and spec), escaped.
        """
        super().__init__()
        self.review = review
        self._title = title
        self._subtitle = subtitle

    def compose(self) -> ComposeResult:
        with Vertical(id="diff-full") as box:
            box.border_title = f"DIFF: {self._title}"
            box.border_subtitle = self._subtitle
            with VerticalScroll(id="diff-full-body"):
                yield DiffView(self.review, keys="] [ files, p pager, Esc back")
            yield Static("", id="diff-full-notice", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#diff-full-body").focus()  # ↑↓, PgUp/PgDn scroll the diff

    def action_diff_file(self, step: int) -> None:
        """Jump to the next or previous file."""
        self.query_one(DiffView).jump(step)

    def action_diff_pager(self) -> None:
        self.notice(hand_to_pager(self.app, self.review))

    def action_close(self) -> None:
        self.dismiss(None)

    def notice(self, text: str | None) -> None:
        """Show ``text`` above the keys (``None``: nothing to say)."""
        line = self.query_one("#diff-full-notice", Static)
        line.update(text or "")
        line.display = bool(text)

"""A checkpoint's diff, file by file and syntax-coloured, inside a scrolling screen.

Each file has a heading line (``file 1/3 textkit/slug.py (+6 −0)``) the screen jumps
between (:meth:`DiffView.jump`), and its section in pages of
:data:`~common.workspace.diff_text.PAGE_LINES` lines, so a large diff is never one
widget too big to lay out. The text is already escaped (:mod:`common.workspace.diff_text`)
and goes through Rich's ``Syntax`` (never markup). Where the stored diff was cut, a line
says so and how to see the whole.
"""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from common.workspace.diff_text import ReviewDiff


class DiffView(Vertical):
    """The headed, paged sections of one :class:`ReviewDiff`; it does not scroll itself:
    the screen's body does, so the test run and findings above it scroll with it."""

    DEFAULT_CSS = """
    DiffView {
        height: auto;
    }
    DiffView > Static {
        height: auto;
    }
    DiffView > .diff-heading {
        text-style: bold;
    }
    DiffView > .diff-cut {
        color: $warning;
        text-style: bold;
    }
    DiffView > .diff-file {
        background: $boost;
        text-style: bold;
        margin-top: 1;
    }
    """

    def __init__(self, review: ReviewDiff, *, keys: str, id: str | None = None) -> None:
        """
        Args:
            review: the diff, escaped and split.
            keys: the keys that jump between files on this screen (shown in the heading).
            id: the widget's id.
        """
        super().__init__(id=id)
        self.review = review
        self._keys = keys
        self._current = -1

    def compose(self) -> ComposeResult:
        review = self.review
        count = len(review.files)
        stat = review.stat or "no changes"
        yield Static(
            f"DIFF ({stat}) — {count} file(s); {self._keys}",
            classes="diff-heading",
            markup=False,
        )
        if review.cut is not None:
            yield Static(f"⚠ {review.cut}", classes="diff-cut", markup=False)
        for number, item in enumerate(review.files, start=1):
            pages = item.pages()
            yield Static(
                f"file {number}/{count} {item.heading()}"
                + (f" — {len(pages)} pages" if len(pages) > 1 else ""),
                classes="diff-file",
                markup=False,
            )
            for page in pages:
                yield Static(Syntax(page, "diff", theme="ansi_dark", word_wrap=False))
        if not review.files:
            yield Static("(the diff is empty)", markup=False)

    @property
    def current_file(self) -> int:
        """The file last jumped to (0-based), ``-1`` before any jump."""
        return self._current

    def jump(self, step: int) -> None:
        """Scroll the next (``step`` 1) or previous (``-1``) file's heading to the top."""
        headings = list(self.query(".diff-file").results(Static))
        if not headings:
            return
        self._current = max(0, min(len(headings) - 1, self._current + step))
        headings[self._current].scroll_visible(top=True, animate=False)

"""A checkpoint's diff, file by file and coloured, inside a scrolling screen.

Each file has a heading line (``file 1/3 textkit/slug.py (+6 −0)``) the screen jumps
between (:meth:`DiffView.jump`), and its section in pages of
:data:`~common.workspace.diff_text.PAGE_LINES` lines, so a large diff is never one
widget too big to lay out. The text is already escaped (:mod:`common.workspace.diff_text`)
and each page is a :class:`~tui.widgets.diff_page.DiffPage` (never markup), which wraps
long lines with a mark on every further row and marks long runs of blanks: nothing of
a line is ever past the edge. Above the files: where the stored diff was cut, the lines
the harness flags as to be read whole, and how many lines this view wraps.
"""

from __future__ import annotations

from functools import cached_property

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from common.schemas.long_lines import LongLines
from common.workspace.diff_text import ReviewDiff
from common.workspace.long_lines import flag_text as one_flag
from tui.widgets.diff_page import CONTINUED, DiffPage, run_mark


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
    DiffView > .diff-cut, DiffView > .diff-flags {
        color: $warning;
        text-style: bold;
    }
    DiffView > .diff-wide {
        color: $warning;
    }
    DiffView > .diff-file {
        background: $boost;
        text-style: bold;
        margin-top: 1;
    }
    DiffView > .diff-file.-first {
        margin-top: 0;  /* the heading's background sets it apart; a row more of diff */
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
        """Heading, cut, flags, what this width wraps, then each file's heading and pages."""
        review = self.review
        count = len(review.files)
        stat = review.stat or "no changes"
        yield Static(
            f"DIFF ({stat}) — {count} file(s) · {self._keys}",
            classes="diff-heading",
            markup=False,
        )
        if review.cut is not None:
            yield Static(f"⚠ {review.cut}", classes="diff-cut", markup=False)
        if review.long_lines.total:
            yield Static(flag_text(review.long_lines), classes="diff-flags", markup=False)
        yield self._wide_line
        for number, item in enumerate(review.files, start=1):
            pages = item.pages()
            yield Static(
                f"file {number}/{count} {item.heading()}"
                + (f" — {len(pages)} pages" if len(pages) > 1 else ""),
                classes="diff-file -first" if number == 1 else "diff-file",
                markup=False,
            )
            for page in pages:
                yield Static(DiffPage(page), classes="diff-page")
        if not review.files:
            yield Static("(the diff is empty)", markup=False)

    @cached_property
    def _wide_line(self) -> Static:
        """What this view wraps at its width: said again on every resize."""
        line = Static("", classes="diff-wide", markup=False)
        line.display = False
        return line

    def pages(self) -> list[DiffPage]:
        """The pages of every file, in order."""
        return [
            page.content
            for page in self.query(".diff-page").results(Static)
            if isinstance(page.content, DiffPage)
        ]

    def on_resize(self, event: events.Resize) -> None:
        """Say again what this width wraps (only when it changed: no layout loop)."""
        said = self.wide_text(event.size.width)
        if said != self._wide_line.content:
            self._wide_line.update(said)
            self._wide_line.display = bool(said)
            if self._current >= 0:  # the rows above moved: the file jumped to stays on top
                self.call_after_refresh(self.jump, 0)

    def wide_text(self, width: int) -> str:
        """``2 lines are wider than this view (68 columns): …`` (empty: none, no marks)."""
        pages = self.pages()
        wide = sum(page.wide_lines(width) for page in pages)
        marked = any(line.marks for page in pages for line in page.lines)
        said: list[str] = []
        if wide:
            noun = "line" if wide == 1 else "lines"
            said.append(f"{wide} {noun} wrapped: {CONTINUED} starts each further row")
        if marked:
            said.append(f"{run_mark('N')} is N blanks in a row")
        return "; ".join(said)

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


def flag_text(flags: LongLines) -> str:
    """``⚠ core.py line 12: 372 characters, 300 of them spaces in a row``, a line each
    (the first ones, then how many more): right above the code they are about."""
    lines = [f"⚠ {one_flag(item)}" for item in flags.lines]
    if flags.total > len(flags.lines):
        lines.append(f"⚠ … and {flags.total - len(flags.lines)} more lines to read whole")
    return "\n".join(lines)

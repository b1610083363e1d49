"""One page of a diff as a person reads it: every character on screen, at any width.

A view that cuts lines at its edge hides what a model put past it (``__version__ =
"0.2.0"``, 300 spaces, then a call). So a page wraps instead of cutting: each further
row of a long line starts with :data:`CONTINUED`, and a run of blanks long enough to
push code out of sight (:func:`common.workspace.long_lines.marked_runs`) is drawn as
``·×300`` in reverse video. Wrapping, not sideways scrolling: every character is on
screen without the reviewer doing anything, a cut line cannot pass unnoticed, and it
reads the same in a browser (``harness web``) and on a 16-colour terminal, since the
marks are characters, not colours.

The text is already escaped (:mod:`common.workspace.diff_text`) and is never read as
markup: it goes into Rich ``Text`` as plain strings with styles by line kind.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.text import Text

from common.workspace.long_lines import marked_runs

#: What starts each further row of a wrapped line (a diff's own lines never start with it).
CONTINUED = "↪"
CONTINUED_STYLE = "bold yellow"
#: How a marked run of blanks is drawn (reverse video, so it never reads as code).
RUN_STYLE = "reverse bold"
TAB_SIZE = 8


def run_mark(length: int | str) -> str:
    """``·×300``: a run of ``length`` blanks, as the page draws it."""
    return f"·×{length}"


def line_style(line: str) -> str:
    """The colour of one diff line by its kind (ANSI colours: 16-colour terminals too)."""
    if line.startswith(("diff ", "index ", "--- ", "+++ ", "new file", "deleted file")):
        return "bold"
    if line.startswith("@@"):
        return "cyan"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    return ""


@dataclass(frozen=True)
class ShownLine:
    """One diff line as drawn: its text and where its run marks are."""

    text: Text
    marks: tuple[tuple[int, int], ...]
    """``(start, end)`` of each run mark in ``text``: a row never breaks inside one."""


def shown_line(line: str) -> ShownLine:
    """``line`` with its long runs of blanks marked and its tabs expanded.

    The first character (the diff's ``+``, ``-`` or space) stays as it is; the runs are
    looked for in what follows it, as the checkpoint's count does.
    """
    style = line_style(line)
    text = Text(style=style, no_wrap=True, end="")
    marks: list[tuple[int, int]] = []
    at = 0
    for start, end in marked_runs(line[1:]):
        _append_plain(text, line[at : start + 1])
        mark = run_mark(end - start)
        marks.append((len(text.plain), len(text.plain) + len(mark)))
        text.append(mark, RUN_STYLE)
        at = end + 1
    _append_plain(text, line[at:])
    return ShownLine(text, tuple(marks))


def _append_plain(text: Text, part: str) -> None:
    """``part`` with each tab expanded to the next stop, counted from the line's start."""
    if "\t" not in part:
        text.append(part)
        return
    for piece in part.split("\t")[:-1]:
        text.append(piece)
        text.append(" " * (TAB_SIZE - cell_len(text.plain) % TAB_SIZE))
    text.append(part.rsplit("\t", 1)[1])


def row_breaks(line: ShownLine, width: int) -> list[int]:
    """Where ``line`` breaks into rows of ``width`` cells, the further rows one cell
    narrower for :data:`CONTINUED` (character offsets; empty when it fits)."""
    plain = line.text.plain
    if width < 2 or cell_len(plain) <= width:
        return []
    breaks: list[int] = []
    start, room, used, at = 0, width, 0, 0
    while at < len(plain):
        cells = cell_len(plain[at])
        if used + cells > room and at > start:
            start = _outside_marks(line.marks, at, start, width - 1)
            breaks.append(start)
            room = width - 1
            used = cell_len(plain[start:at])
            continue  # the same character again, on the new row
        used += cells
        at += 1
    return breaks


def _outside_marks(marks: tuple[tuple[int, int], ...], at: int, row_start: int, room: int) -> int:
    """``at``, moved back to the start of a run mark it would split (when the mark fits a
    row of its own and the row keeps something before it)."""
    for start, end in marks:
        if start < at < end and start > row_start and end - start <= room:
            return start
    return at


def rows(line: ShownLine, width: int) -> list[Text]:
    """``line`` as rows of at most ``width`` cells, each further one after :data:`CONTINUED`."""
    breaks = row_breaks(line, width)
    if not breaks:
        return [line.text]
    first, *further = line.text.divide(breaks)
    return [first, *(Text.assemble((CONTINUED, CONTINUED_STYLE), part) for part in further)]


class DiffPage:
    """A Rich renderable: the page's lines, wrapped with marks at the width it is given."""

    def __init__(self, text: str) -> None:
        """
        Args:
            text: the page's diff lines, already escaped.
        """
        self.lines = [shown_line(line) for line in text.splitlines()]

    def wide_lines(self, width: int) -> int:
        """How many lines are wider than ``width`` cells (shown wrapped)."""
        return sum(1 for line in self.lines if cell_len(line.text.plain) > width)

    def plain_rows(self, width: int) -> list[str]:
        """The rows as text (what a person reads, without colours): for tests and tools."""
        return [row.plain for line in self.lines for row in rows(line, width)]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        for line in self.lines:
            for row in rows(line, width):
                yield from row.render(console)
                yield Segment.line()

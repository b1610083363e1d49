"""Two columns of text whose second column wraps under itself, never back to column 0.

The help lists keys, phases and checkpoints as ``label  what it means``; at 80 columns a
long meaning wrapped to the start of the next line, under the labels, and the list no
longer read as a list. This widget wraps each meaning at the width it is given and
indents its continuation lines to the meaning's column, at any terminal size.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

Row = tuple[Content, Content]
"""A label and its meaning; a row with no meaning is a line of its own (a heading)."""


class HangingText(Widget):
    """Rows of (label, meaning): labels padded to ``column``, meanings wrapped after it."""

    DEFAULT_CSS = """
    HangingText {
        height: auto;
    }
    """

    def __init__(self, rows: Sequence[Row], column: int, *, id: str | None = None) -> None:
        """
        Args:
            rows: the rows, top to bottom.
            column: where the meanings start (a longer label pushes its meaning to the
                next line, at that column).
            id: the widget's id.
        """
        super().__init__(id=id)
        self.rows = list(rows)
        self.column = column
        self._cached: tuple[int, list[Content]] | None = None

    def lines(self, width: int) -> list[Content]:
        """The rows laid out at ``width`` cells."""
        if self._cached is not None and self._cached[0] == width:
            return self._cached[1]
        room = max(10, width - self.column)
        lines: list[Content] = []
        for label, meaning in self.rows:
            if not meaning:
                lines += label.wrap(max(1, width)) if label else [Content("")]
                continue
            wrapped = meaning.wrap(room)
            if label.cell_length >= self.column:  # a long label gets a line of its own
                lines.append(label)
            else:
                first = wrapped.pop(0)
                lines.append(label.pad_right(self.column - label.cell_length) + first)
            lines += [line.pad_left(self.column) for line in wrapped]
        self._cached = (width, lines)
        return lines

    def plain(self) -> str:
        """Every row as text, labels and meanings on one line each (for searching)."""
        return "\n".join(f"{label.plain} {meaning.plain}".rstrip() for label, meaning in self.rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render(self) -> Content:
        return Content("\n").join(self.lines(self.content_region.width))

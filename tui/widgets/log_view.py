"""The selected agent's log, followed live.

A watchfiles ``awatch`` on the log's folder (inside an exclusive worker, so
switching agents cancels the old watch) wakes a :class:`LineTail` that reads
only the new bytes. A :class:`LogRenderer` turns each line into a compact one
with an icon (checkpoint banners collapse to a line); the ``Log`` widget colours
the lines on screen with a :class:`LogHighlighter`, keeps at most
:data:`MAX_LINES` rows, and shows long lines wrapped at the pane's width (``w``
toggles it; they are wrapped again when the pane changes width).

The view follows the end until the person scrolls up, and follows again once
they scroll back to the bottom. It keeps that state itself rather than asking
the ``Log`` whether it is at the end before each write: a scrollbar appearing
(the first line wider than the view) moves the end by a line without any
scrolling, and the ``Log`` would stop following for good.
"""

from __future__ import annotations

import asyncio
from collections import deque
from contextlib import aclosing
from pathlib import Path

from rich.cells import cell_len
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Log, Static
from watchfiles import awatch

from tui.services.log_render import LogHighlighter, LogRenderer, wrap
from tui.services.log_tail import LineTail

#: Scrollback kept in memory; older lines fall off the top.
MAX_LINES = 10_000
#: watchfiles: yield a batch after this many quiet milliseconds ...
WATCH_STEP_MS = 10
#: ... or after this long under a continuous stream of writes.
WATCH_DEBOUNCE_MS = 40


class PaneLog(Log):
    """Textual's ``Log``, measuring new lines' width on the UI thread.

    ``Log`` measures them in a thread worker that reaches for ``self.app`` when done: a
    batch written just before the TUI exits then fails with ``NoActiveAppError`` after
    the app is gone (seen under load, as a failed test and as a traceback on quitting).
    A batch here is one drain of the log file, so measuring it in place costs little.
    """

    def _update_size(self, updates: int, lines: list[str]) -> None:  # type: ignore[override]
        if lines:
            width = max(cell_len(self._process_line(line)) for line in lines)
            self._update_maximum_width(updates, width)


class LogView(Vertical):
    """A title line and the log of one agent."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path: Path | None = None
        self.lines_shown = 0
        """Lines written since the last :meth:`follow`."""
        self.following = True
        """Whether new lines scroll the view to the end."""
        # Kept, not queried: the follow worker may wake while the TUI is closing.
        self._title = Static("No agent selected", id="log-title", markup=False)
        self._log = PaneLog(max_lines=MAX_LINES, auto_scroll=False, highlight=True, id="log")
        self._log.highlighter = LogHighlighter()
        self._renderer = LogRenderer()
        self._shown: deque[str] = deque(maxlen=MAX_LINES)
        self._wrap = True
        self._wrapped_at = 0

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._log

    def on_mount(self) -> None:
        self.watch(self._log, "scroll_y", self._scrolled, init=False)

    @property
    def wrap(self) -> bool:
        """Whether long lines wrap (otherwise the pane scrolls sideways)."""
        return self._wrap

    def toggle_wrap(self) -> None:
        """Wrap long lines, or stop wrapping them; what is shown is laid out again."""
        self._wrap = not self._wrap
        self._relayout()

    def on_resize(self, _: events.Resize) -> None:
        """Wrap again at the new width, when a line is long enough for it to matter."""
        old, new = self._wrapped_at, self._row_width()
        if not self._wrap or new == old or new <= 0:
            return
        self._wrapped_at = new
        narrower = min(old, new) if old > 0 else new
        if any(len(line) > narrower for line in self._shown):
            self._relayout()

    def plain_lines(self) -> list[str]:
        """The pane's lines as text (one per log line, however it wraps)."""
        return list(self._shown)

    def _row_width(self) -> int:
        width: int = self._log.scrollable_content_region.width
        return width

    def _rows(self, lines: list[str]) -> list[str]:
        width = self._row_width()
        if not self._wrap or width <= 0:
            return lines
        self._wrapped_at = width
        return [row for line in lines for row in wrap(line, width)]

    def _relayout(self) -> None:
        """Write every kept line again (wrapped or not); the view keeps following or its place."""
        following, y = self.following, self._log.scroll_y
        self._log.clear()
        if self._shown:
            self._log.write_lines(self._rows(list(self._shown)), scroll_end=False)
        self.following = following
        if following:
            self.call_after_refresh(self._to_end)
        else:
            self._log.scroll_to(y=y, animate=False, immediate=True)

    def _scrolled(self, y: float) -> None:
        """The person scrolled (or the view followed): at the bottom means following."""
        self.following = y >= self._log.max_scroll_y

    def follow(self, path: Path | None) -> None:
        """Show ``path`` from its end and keep following it (``None``: show nothing)."""
        if path == self.path:
            return
        self.path = path
        self.lines_shown = 0
        self.following = True
        self._log.clear()
        self._shown.clear()
        self._renderer.reset()
        self._title.update(path.name if path else "No agent selected")
        if path is None:
            self.workers.cancel_group(self, "log-follow")
            return
        self._follow(path)

    @work(exclusive=True, group="log-follow")
    async def _follow(self, path: Path) -> None:
        """Read what is there, then read on whenever the folder reports a change to the file."""
        tail = LineTail(path)
        await self._drain(tail)
        # The first lines may arrive before the view has its size: settle at the end once laid out.
        self.call_after_refresh(self._settle)
        if not path.parent.is_dir():
            self._write([f"(the log folder {path.parent} does not exist)"])
            return
        changes = awatch(
            path.parent,
            debounce=WATCH_DEBOUNCE_MS,
            step=WATCH_STEP_MS,
            recursive=False,
            watch_filter=None,
        )
        async with aclosing(changes) as batches:
            async for batch in batches:
                if any(Path(changed).name == path.name for _, changed in batch):
                    await self._drain(tail)

    async def _drain(self, tail: LineTail) -> None:
        """Read until caught up, giving the screen a turn between bounded chunks."""
        while True:
            read = tail.read()
            if read.restarted:
                self._log.clear()
                self._shown.clear()
                self._renderer.reset()
                self.lines_shown = 0
            self._write(read.lines)
            if not read.more:
                return
            await asyncio.sleep(0)

    def _write(self, lines: list[str]) -> None:
        rendered = [text for line in lines if (text := self._renderer.render(line)) is not None]
        if rendered:
            self._log.write_lines(self._rows(rendered), scroll_end=False)
            self._shown.extend(rendered)
            self.lines_shown += len(rendered)
            if self.following:
                self._to_end()

    def _settle(self) -> None:
        if self.following:
            self._to_end()

    def _to_end(self) -> None:
        self._log.scroll_end(animate=False, immediate=True, x_axis=False)

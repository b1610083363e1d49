"""The selected agent's log, followed live.

A watchfiles ``awatch`` on the log's folder (inside an exclusive worker, so
switching agents cancels the old watch) wakes a :class:`LineTail` that reads
only the new bytes. A :class:`LogRenderer` turns each line into a compact,
coloured one (checkpoint banners collapse to a line); the ``RichLog`` wraps
long lines (``w`` toggles it) and keeps at most :data:`MAX_LINES` lines.

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

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import RichLog, Static
from watchfiles import awatch

from tui.services.log_render import LogRenderer
from tui.services.log_tail import LineTail

#: Scrollback kept in memory; older lines fall off the top.
MAX_LINES = 10_000
#: watchfiles: yield a batch after this many quiet milliseconds ...
WATCH_STEP_MS = 10
#: ... or after this long under a continuous stream of writes.
WATCH_DEBOUNCE_MS = 40


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
        self._log = RichLog(
            max_lines=MAX_LINES, wrap=True, markup=False, auto_scroll=False, id="log"
        )
        self._renderer = LogRenderer()
        self._shown: deque[Text] = deque(maxlen=MAX_LINES)

    def compose(self) -> ComposeResult:
        yield self._title
        yield self._log

    def on_mount(self) -> None:
        self.watch(self._log, "scroll_y", self._scrolled, init=False)

    @property
    def wrap(self) -> bool:
        """Whether long lines wrap (otherwise the pane scrolls sideways)."""
        return self._log.wrap

    def toggle_wrap(self) -> None:
        """Wrap long lines, or stop wrapping them; what is shown is laid out again."""
        self._log.wrap = not self._log.wrap
        self._log.clear()
        for line in self._shown:
            self._log.write(line, scroll_end=False)
        if self.following:
            self.call_after_refresh(self._to_end)

    def plain_lines(self) -> list[str]:
        """The pane's lines as text (one per log line, however it wraps)."""
        return [line.plain for line in self._shown]

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
            for text in rendered:
                self._log.write(text, scroll_end=False)
            self._shown.extend(rendered)
            self.lines_shown += len(rendered)
            if self.following:
                self._to_end()

    def _settle(self) -> None:
        if self.following:
            self._to_end()

    def _to_end(self) -> None:
        self._log.scroll_end(animate=False, immediate=True, x_axis=False)

"""The toasts of a dialog, review or question: a line above its box, never on it.

Textual's toasts float over the screen on their own layer, so over a dialog they sat on
its title, over the remove question on the question, over a review on its file header.
Over such a screen (any :class:`~textual.screen.ModalScreen` of the TUI) the app shows
each notification here instead: a line docked to the top of the screen, in the same layer
as the box, so the box is laid out below it and nothing of it is hidden. The toast itself
is still recorded by Textual (hidden over the modal by ``app.tcss``): if the modal closes
before it expires, the running view shows it.
"""

from __future__ import annotations

import time

from textual.content import Content
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

#: How each severity reads: the word is there for a terminal without colour.
SEVERITY_STYLE: dict[SeverityLevel, str] = {
    "information": "bold $accent",
    "warning": "bold $warning",
    "error": "bold $error",
}


class NewsLine(Static):
    """The newest live notification (and how many more are live), hidden when none is."""

    def __init__(self) -> None:
        super().__init__("", id="news-line")
        self._live: list[tuple[float, Content]] = []
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self._show()  # what was added while it was being mounted

    def add(self, message: str, *, title: str, severity: SeverityLevel, timeout: float) -> None:
        """Show ``message`` (already escaped: never markup) for ``timeout`` seconds."""
        head = f"{title}: " if title else ""
        if severity == "error":
            head = f"error: {head}"
        text = Content.assemble((head, SEVERITY_STYLE[severity]), message)
        self._live.append((time.monotonic() + timeout, text))
        if self.is_mounted:
            self._show()

    def _show(self) -> None:
        """Drop what expired; show the newest; wake up when the next one expires."""
        now = time.monotonic()
        self._live = [(until, text) for until, text in self._live if until > now]
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.display = bool(self._live)
        if not self._live:
            self.update("")
            return
        newest = self._live[-1][1]
        older = len(self._live) - 1
        self.update(newest + Content.styled(f"  (+{older} more)", "dim") if older else newest)
        first_to_go = min(until for until, _ in self._live)
        self._timer = self.set_timer(max(0.05, first_to_go - now), self._show)


def news_line(screen: Screen[object]) -> NewsLine:
    """``screen``'s news line, mounted at its top the first time it is needed."""
    found = screen.query(NewsLine)
    if found:
        return found.first(NewsLine)
    line = NewsLine()
    screen.mount(line, before=0)
    return line

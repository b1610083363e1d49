"""The agent's log: readable lines on stdout, which the daemon sends to the log file.

A person reads this log (``harness logs``, the TUI), so nothing in it may act on their
terminal or pass for the harness: every line is escaped
(:func:`common.untrusted_text.printable`), the model's own words go through
:meth:`AgentLog.model` and carry :data:`~common.untrusted_text.MODEL_MARK` on every
line, and the second and later lines of a harness message are indented under its
first (an error that quotes the model cannot start a line of its own).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import TextIO

from common.untrusted_text import MODEL_MARK, marked_lines, printable

#: What the second and later lines of one harness message start with.
CONTINUATION = "  │ "


class AgentLog:
    """Timestamped lines; multi-line text keeps its shape (checkpoints, test output)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stdout
        self._clean: Callable[[str], str] | None = None

    def redact_with(self, clean: Callable[[str], str]) -> None:
        """From now on every line passes through ``clean`` (secrets out, counted)."""
        self._clean = clean

    def __call__(self, text: str) -> None:
        """A harness line (values in it escaped); further lines are indented under it."""
        first, *rest = printable(self._redacted(text)).splitlines() or [""]
        self._stamped([first, *(CONTINUATION + line for line in rest)])

    def model(self, text: str, mark: str = MODEL_MARK) -> None:
        """The model's words (or what its tools printed): ``mark`` starts every line."""
        self._stamped(marked_lines(self._redacted(text), mark))

    def block(self, text: str) -> None:
        """Write ``text`` as it is (a rendered checkpoint), escaped, without timestamps."""
        self._stream.write(printable(self._redacted(text)).rstrip("\n") + "\n")
        self._stream.flush()

    def _redacted(self, text: str) -> str:
        return text if self._clean is None else self._clean(text)

    def _stamped(self, lines: list[str]) -> None:
        stamp = datetime.now().strftime("%H:%M:%S")
        self._stream.write("".join(f"{stamp} {line}\n" for line in lines))
        self._stream.flush()

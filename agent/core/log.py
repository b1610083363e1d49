"""The agent's log: readable lines on stdout, which the daemon sends to the log file."""

from __future__ import annotations

import sys
from collections.abc import Callable
from datetime import datetime
from typing import TextIO


class AgentLog:
    """Timestamped lines; multi-line text keeps its shape (checkpoints, test output)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stdout
        self._clean: Callable[[str], str] | None = None

    def redact_with(self, clean: Callable[[str], str]) -> None:
        """From now on every line passes through ``clean`` (secrets out, counted)."""
        self._clean = clean

    def __call__(self, text: str) -> None:
        if self._clean is not None:
            text = self._clean(text)
        stamp = datetime.now().strftime("%H:%M:%S")
        for line in text.splitlines() or [""]:
            self._stream.write(f"{stamp} {line}\n")
        self._stream.flush()

    def block(self, text: str) -> None:
        """Write ``text`` as it is (a rendered checkpoint), without timestamps."""
        if self._clean is not None:
            text = self._clean(text)
        self._stream.write(text.rstrip("\n") + "\n")
        self._stream.flush()

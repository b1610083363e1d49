"""Everything the ``harness`` command prints, escaped on its way to the terminal.

The commands print agent names, reasons, paths, checkpoint text, trace lines and
errors, much of which quotes what the model wrote. Each command escapes what it
renders; this is the net under them all: while a command runs, ``sys.stdout`` and
``sys.stderr`` pass every write through :func:`common.untrusted_text.printable`, so a
command added later, or a value a command forgot, still cannot drive the terminal.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from typing import TextIO, cast

from common.untrusted_text import printable


class PrintableStream(io.TextIOBase):
    """A text stream that writes ``printable(text)`` to the stream it wraps."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.wrapped = stream

    def write(self, text: str) -> int:
        self.wrapped.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self.wrapped.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.wrapped.isatty()

    def fileno(self) -> int:
        return self.wrapped.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.wrapped.encoding


@contextlib.contextmanager
def printable_output() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` escaped inside the block (restored after it)."""
    saved = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, PrintableStream):
        sys.stdout = cast(TextIO, PrintableStream(sys.stdout))
    if not isinstance(sys.stderr, PrintableStream):
        sys.stderr = cast(TextIO, PrintableStream(sys.stderr))
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.stdout, sys.stderr = saved

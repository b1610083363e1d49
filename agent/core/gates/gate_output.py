"""A test run's output, kept within a fixed budget however much the run prints.

Why: the test command runs the model's code, and the harness, outside the sandbox,
reads everything it prints. 1.5 GB of output made the agent process grow to 5.9 GB and
put a 1.5 GB line into ``state.json`` (measured); a few GB more and the harness dies.
What the gates need is at the ends: the runner's banner at the start, its short summary
(``FAILED …`` lines) and closing line at the end. So the first ``head`` bytes and the
last ``tail`` bytes are kept, the middle is counted and named, never stored.
"""

from __future__ import annotations

HEAD_BYTES = 64 * 1024
TAIL_BYTES = 1024 * 1024
LINE_CHARS = 400
"""The longest line a summary or the kept tail shows (a person reads it, state keeps it)."""


class BoundedOutput:
    """The head and tail of a byte stream, and how much was left out between them."""

    def __init__(self, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self._head_limit = head
        self._tail_limit = tail
        self._head = bytearray()
        self._tail = bytearray()
        self.dropped = 0
        """Bytes between the head and the tail that were read and thrown away."""

    def add(self, chunk: bytes) -> None:
        """Take the next chunk of the stream (any size)."""
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        excess = len(self._tail) - self._tail_limit
        if excess > 0:
            del self._tail[:excess]
            self.dropped += excess

    def text(self) -> str:
        """The kept output as text, with one line naming what was cut."""
        if not self.dropped:
            return (bytes(self._head) + bytes(self._tail)).decode(errors="replace")
        cut = f"\n… ({self.dropped:,} bytes of output cut by the harness) …\n"
        head = bytes(self._head).decode(errors="replace")
        return head + cut + bytes(self._tail).decode(errors="replace")


def short_line(line: str, limit: int = LINE_CHARS) -> str:
    """``line`` cut to ``limit`` characters, saying so."""
    if len(line) <= limit:
        return line
    return f"{line[:limit]}… ({len(line) - limit:,} more characters)"

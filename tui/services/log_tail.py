"""Reading a growing log file by byte offset, Toolong-style.

The view never reads a whole log: a large file is opened from its last
:data:`OPEN_TAIL_BYTES`, every later read is bounded by :data:`READ_LIMIT`, and
when the writer races too far ahead the reader jumps to the end instead of
falling further behind. A partial last line is held back until its newline
arrives; a file that shrank or was replaced is read again from the start.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field
from pathlib import Path

#: How much of an existing log is shown when it is opened (its end).
OPEN_TAIL_BYTES = 256 * 1024
#: The most one read takes; a larger backlog is read over several calls.
READ_LIMIT = 1024 * 1024
#: A backlog larger than this is skipped (the view keeps up rather than lag behind).
SKIP_BACKLOG_BYTES = 8 * 1024 * 1024


@dataclass
class TailRead:
    """The complete lines read by one call, and whether more is waiting."""

    lines: list[str] = field(default_factory=list)
    more: bool = False
    """The backlog exceeded :data:`READ_LIMIT`; call again to read on."""
    restarted: bool = False
    """The file shrank or was replaced: what was shown before is stale."""


class LineTail:
    """Complete lines appended to ``path`` since the last read."""

    def __init__(
        self,
        path: Path,
        *,
        open_tail_bytes: int = OPEN_TAIL_BYTES,
        read_limit: int = READ_LIMIT,
        skip_backlog_bytes: int = SKIP_BACKLOG_BYTES,
    ) -> None:
        self.path = path
        self.offset = 0
        self._inode: int | None = None
        self._open_tail = open_tail_bytes
        self._read_limit = read_limit
        self._skip_backlog = skip_backlog_bytes
        self._opened = False
        self._partial = ""
        self._cut_line = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self) -> TailRead:
        """Read on from the offset (at most :data:`READ_LIMIT` bytes).

        A missing file reads as nothing; it is picked up once it appears.
        """
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return TailRead()
        result = TailRead()
        if self._inode is not None and (stat.st_ino != self._inode or stat.st_size < self.offset):
            self._restart()
            result.restarted = True
        self._inode = stat.st_ino
        notes: list[str] = []
        if not self._opened:
            self._opened = True
            if stat.st_size > self._open_tail:
                start = stat.st_size - self._open_tail
                notes.append(f"… {_size(start)} earlier in {self.path.name} not shown …")
                self._jump(start)
        elif stat.st_size - self.offset > self._skip_backlog:
            start = stat.st_size - self._open_tail
            notes.append(f"… {_size(start - self.offset)} skipped to keep up with the writer …")
            self._jump(start)
        data = self._read_chunk(stat.st_size)
        result.more = self.offset < stat.st_size
        result.lines = notes + self._split(data)
        return result

    def _read_chunk(self, size: int) -> bytes:
        wanted = min(size - self.offset, self._read_limit)
        if wanted <= 0:
            return b""
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read(wanted)
        self.offset += len(data)
        return data

    def _split(self, data: bytes) -> list[str]:
        """Complete lines of ``data``; a line cut by a jump in the offset is dropped."""
        text = self._partial + self._decoder.decode(data)
        if self._cut_line:
            newline = text.find("\n")
            if newline < 0:
                self._partial = ""
                return []
            text = text[newline + 1 :]
            self._cut_line = False
        lines = text.split("\n")
        self._partial = lines.pop()
        return [line.rstrip("\r") for line in lines]

    def _jump(self, start: int) -> None:
        """Continue at ``start``; reading from the byte before tells whether a line begins there.

        The text up to the first newline is then a cut line, and :meth:`_split` drops it.
        """
        self.offset = start - 1
        self._cut_line = True
        self._partial = ""
        self._decoder.reset()

    def _restart(self) -> None:
        self.offset = 0
        self._cut_line = False
        self._partial = ""
        self._decoder.reset()


def _size(count: int) -> str:
    """``12 KiB``, ``3.4 MiB``: a byte count a person reads at a glance."""
    if count < 1024 * 1024:
        return f"{max(1, count // 1024)} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"

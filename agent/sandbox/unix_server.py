"""A Unix socket served by the agent for its sandbox, and the byte copy its servers share.

Why one place: the sandbox reaches the agent only through Unix sockets in its private
folder (the model's bridge, the host proxy). Each must be 0600, hold a task per
connection, carry only so many at once, and at its end cancel every connection still
open and remove its socket; written twice, those rules had already drifted once.

Why a bound on open connections: every connection a process inside makes costs the
agent file descriptors (two for a bridged one, three with the endpoint behind it), and
the agent shares its descriptor limit with everything it does (state writes, git, the
other slots). Measured: 3,000 connections held open from inside the sandbox took the
agent from 12 to 9,013 descriptors; at the common soft limit of 1,024 about 340 would
have left it unable to open a file.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Self

CHUNK = 65536
DEFAULT_LIMIT = 2**16
"""asyncio's own default for a stream's buffer (and the longest line it reads)."""
MAX_OPEN = 64
"""Connections carried at once; past it a new one is turned away until one closes."""


class UnixSocketServer(ABC):
    """``async with Server(path):`` serves ``path`` (mode 0600) until the block ends."""

    def __init__(
        self,
        path: Path,
        *,
        limit: int = DEFAULT_LIMIT,
        max_open: int = MAX_OPEN,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self._limit = limit
        self.max_open = max_open
        self.log = log
        """Where the first connection turned away of each burst is said (``None``: nowhere)."""
        self.turned_away = 0
        """Connections turned away because ``max_open`` were open."""
        self._burst_logged = False
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @abstractmethod
    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection; ``writer`` is closed after it, whatever happened."""

    @property
    def open_connections(self) -> int:
        """Connections being carried (or read) now."""
        return len(self._tasks)

    def turn_away(self, writer: asyncio.StreamWriter, reason: str) -> None:  # noqa: B027 (a hook)
        """What a connection past ``max_open`` gets before it is closed: nothing here (a
        server that speaks a protocol answers in it)."""

    def turned_away_line(self, reason: str) -> str:
        """The log line for the first connection turned away in a burst."""
        return f"[sandbox] refused a connection to {self.path.name}: {reason}"

    async def __aenter__(self) -> Self:
        self._server = await asyncio.start_unix_server(
            self._serve, path=str(self.path), limit=self._limit
        )
        self.path.chmod(0o600)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        if self._server is not None:
            await self._server.wait_closed()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if len(self._tasks) >= self.max_open:
            self._turn_away(writer)
            return
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self.handle(reader, writer)
        finally:
            writer.close()
            self._tasks.discard(task)
            self._burst_logged = False

    def _turn_away(self, writer: asyncio.StreamWriter) -> None:
        """Turn a connection away unread: the first of a burst is said, every one counted."""
        reason = f"{self.max_open} connections are open already; close one first"
        if not self._burst_logged and self.log is not None:
            self.log(self.turned_away_line(reason))
        self._burst_logged = True
        self.turned_away += 1
        self.turn_away(writer, reason)
        writer.close()


async def copy_stream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until the end of ``reader``, then half-close ``writer``."""
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        writer.close()

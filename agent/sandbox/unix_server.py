"""A Unix socket served by the agent for its sandbox, and the byte copy its servers share.

Why one place: the sandbox reaches the agent only through Unix sockets in its private
folder (the model's bridge, the host proxy). Each must be 0600, hold a task per
connection, and at its end cancel every connection still open and remove its socket;
written twice, those rules had already drifted once.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from pathlib import Path
from types import TracebackType
from typing import Self

CHUNK = 65536
DEFAULT_LIMIT = 2**16
"""asyncio's own default for a stream's buffer (and the longest line it reads)."""


class UnixSocketServer(ABC):
    """``async with Server(path):`` serves ``path`` (mode 0600) until the block ends."""

    def __init__(self, path: Path, *, limit: int = DEFAULT_LIMIT) -> None:
        self.path = path
        self._limit = limit
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @abstractmethod
    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection; ``writer`` is closed after it, whatever happened."""

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
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self.handle(reader, writer)
        finally:
            writer.close()
            self._tasks.discard(task)


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

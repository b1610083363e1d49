"""Outside the sandbox: a Unix socket that leads to a TCP endpoint on the host.

The sandbox's relay (:mod:`agent.sandbox.relay`) connects here; this copies the
bytes to the model endpoint (the embedded model or the agent's model proxy) on
the host's ``127.0.0.1``. The socket lives in the sandbox's private folder
(0700), so nothing outside the agent and its sandbox can use it.

It copies bytes and reads none of them: the model's own commands reach this socket
as well as the CLI does, so the gate is the HTTP-aware proxy it always leads to
(:mod:`agent.core.model_proxy`, in front of the embedded model too): only the
Messages API, only while a session runs, every answer charged to that session.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from types import TracebackType

_CHUNK = 65536


class UnixBridge:
    """``async with UnixBridge(path, host, port):`` serves ``path`` until exit."""

    def __init__(self, path: Path, host: str, port: int) -> None:
        self.path = path
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> UnixBridge:
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path))
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
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()
            self._tasks.discard(task)
            return
        try:
            await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
        finally:
            writer.close()
            up_writer.close()
            self._tasks.discard(task)


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until the end of ``reader``, then half-close ``writer``."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        writer.close()

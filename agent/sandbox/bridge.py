"""Outside the sandbox: a Unix socket that leads to a TCP endpoint on the host.

The sandbox's relay (:mod:`agent.sandbox.relay`) connects here; this copies the
bytes to the model endpoint (the embedded model or the agent's model proxy) on
the host's ``127.0.0.1``. The socket lives in the sandbox's private folder
(0700), so nothing outside the agent and its sandbox can use it.

It copies bytes and reads none of them: the model's own commands reach this socket
as well as the CLI does, so the gate is the HTTP-aware proxy it always leads to
(:mod:`agent.core.endpoint.model_proxy`, in front of the embedded model too): only the
Messages API, only while a session runs, every answer charged to that session.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from agent.sandbox.plan import Forward
from agent.sandbox.unix_server import UnixSocketServer, copy_stream
from common.errors import SandboxError

_BASE_URL = "ANTHROPIC_BASE_URL"

MAX_OPEN = 32
"""Connections to the model carried at once: the CLI streams one answer at a time and
makes a few small requests beside it; anything past this is a session's own program
holding connections open, which would spend the agent's file descriptors."""


class UnixBridge(UnixSocketServer):
    """``async with UnixBridge(path, host, port):`` serves ``path`` until exit."""

    def __init__(
        self, path: Path, host: str, port: int, log: Callable[[str], None] | None = None
    ) -> None:
        super().__init__(path, max_open=MAX_OPEN, log=log)
        self.host = host
        self.port = port

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            return  # the endpoint is gone: the connection just closes
        try:
            await asyncio.gather(copy_stream(reader, up_writer), copy_stream(up_reader, writer))
        finally:
            up_writer.close()


def inside_url(base_url: str, port: int) -> str:
    """``base_url`` with its host and port as the relay serves them inside."""
    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, f"127.0.0.1:{port}", parts.path, "", ""))


async def model_forward(
    stack: contextlib.AsyncExitStack,
    private: Path,
    env: dict[str, str],
    log: Callable[[str], None] | None = None,
) -> tuple[Forward, ...]:
    """The bridge to the model endpoint on the host's loopback, served on a socket in
    ``private`` until ``stack`` closes; ``env``'s base URL becomes the relay's inside.

    Raises:
        SandboxError: the endpoint is not on the host's loopback.
    """
    base_url = env.get(_BASE_URL)
    if not base_url:
        return ()
    parts = urlsplit(base_url)
    if parts.hostname not in ("127.0.0.1", "localhost") or parts.port is None:
        raise SandboxError(
            f"the model endpoint {base_url} is not local; a sandbox without "
            'network cannot reach it (set "sandbox_network": true)'
        )
    socket_path = private / "model.sock"
    await stack.enter_async_context(UnixBridge(socket_path, "127.0.0.1", parts.port, log))
    env[_BASE_URL] = inside_url(base_url, parts.port)
    return (Forward(parts.port, socket_path),)

"""The daemon's ``/metrics`` over HTTP, on ``HARNESS_METRICS_ADDR`` (off when unset).

Why off by default: the daemon's only door is a Unix socket in a 0700 folder; a TCP
port is open to every local user (and, off loopback, to the network), and metrics
name the agents and what they spent. So the port opens only when a person asks for it,
on loopback unless they also set ``HARNESS_METRICS_REMOTE=1``: a scrape from another
host is a decision, not a typo away.

``HARNESS_METRICS_ADDR`` is ``host:port``, ``[v6]:port`` or a bare port (loopback).
The server reads one request, answers ``GET /metrics`` (prometheus-client's text
format, built by :mod:`agent.daemon.metrics` off the event loop) and closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from agent.daemon.metrics_facts import FactsCache
from common.errors import DaemonError
from common.schemas.protocol import AgentInfo

log = logging.getLogger(__name__)

ADDRESS_VARIABLE = "HARNESS_METRICS_ADDR"
REMOTE_VARIABLE = "HARNESS_METRICS_REMOTE"
LOOPBACK = "127.0.0.1"
MAX_REQUEST_BYTES = 8192
"""A request head longer than this is no scrape: the connection is closed."""
READ_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class MetricsAddress:
    """Where the daemon serves ``/metrics``."""

    host: str
    port: int

    def url(self, port: int | None = None) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port if port is not None else self.port}/metrics"


def metrics_address(environ: Mapping[str, str]) -> MetricsAddress | None:
    """The address ``HARNESS_METRICS_ADDR`` asks for; ``None`` when it is unset or empty.

    Raises:
        DaemonError: one line: not ``host:port``, a bad port, or a host off loopback
            without ``HARNESS_METRICS_REMOTE=1``.
    """
    raw = environ.get(ADDRESS_VARIABLE, "").strip()
    if not raw:
        return None
    host, colon, port_text = raw.rpartition(":")
    if not colon:
        host, port_text = LOOPBACK, raw
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host or not port_text.isdigit() or int(port_text) > 65535:
        raise DaemonError(
            f"{ADDRESS_VARIABLE}={raw!r} is not host:port or a port (e.g. 127.0.0.1:9464)"
        )
    if not _loopback(host) and environ.get(REMOTE_VARIABLE) != "1":
        raise DaemonError(
            f"{ADDRESS_VARIABLE}={raw!r} is not a loopback address; metrics name the agents "
            f"and their spend: set {REMOTE_VARIABLE}=1 to serve them there"
        )
    return MetricsAddress(host, int(port_text))


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve anywhere


class MetricsServer:
    """Serves the agents' metrics until :meth:`close`."""

    def __init__(self, agents: Callable[[], list[AgentInfo]], refused: Callable[[], int]) -> None:
        """``agents`` and ``refused`` are read on the event loop at each scrape (the
        supervisor's agents, the daemon's refused connections)."""
        self._agents = agents
        self._refused = refused
        self._cache = FactsCache()
        self._server: asyncio.Server | None = None

    async def start(self, address: MetricsAddress) -> int:
        """Listen on ``address``; the port listened on (``0`` asks for any free one).

        Raises:
            DaemonError: the address cannot be bound.
        """
        try:
            self._server = await asyncio.start_server(
                self._serve, address.host, address.port, limit=MAX_REQUEST_BYTES
            )
        except OSError as e:
            raise DaemonError(f"cannot serve metrics on {address.url()}: {e.strerror or e}") from e
        port = int(self._server.sockets[0].getsockname()[1])
        log.info("metrics at %s", address.url(port))
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT_S)
            status, body, kind = await self._answer(head.split(b"\r\n", 1)[0])
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
                + body
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # not a scrape: nothing to answer
        except ConnectionError as e:
            log.debug("metrics client went away: %s", e)
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _answer(self, request_line: bytes) -> tuple[str, bytes, str]:
        """The status line, body and content type for one request line."""
        # Imported here: prometheus-client is loaded only by a daemon that serves metrics.
        from agent.daemon.metrics import CONTENT_TYPE, exposition

        parts = request_line.split()
        if len(parts) != 3 or parts[0] != b"GET":
            return "405 Method Not Allowed", b"only GET /metrics\n", "text/plain"
        if parts[1].split(b"?", 1)[0] != b"/metrics":
            return "404 Not Found", b"see /metrics\n", "text/plain"
        agents, refused = self._agents(), self._refused()
        body = await asyncio.to_thread(exposition, agents, self._cache, refused)
        return "200 OK", body, CONTENT_TYPE

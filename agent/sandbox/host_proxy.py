"""Outside the sandbox: the filtering HTTP proxy that is the sandbox's one way out.

Why: the sandbox has a network namespace of its own; without ``sandbox_network`` its
only routes are the forwards the relay serves on its loopback. A project whose tests
need a package registry, or an MCP server that calls its service, needs a few hosts,
not the whole network. So the agent serves this proxy on a Unix socket in its private
folder, forwarded into the sandbox at a loopback port like the model entrance, and the
sessions and test gates get ``HTTPS_PROXY``/``HTTP_PROXY`` pointing at it.

It speaks just enough HTTP to pick the destination: ``CONNECT host:port`` (https and
any TLS or TCP client that uses a proxy), or an absolute-URI request
(``GET http://host:port/path``) for plain http. The destination is checked against
the allowlist by the name asked for, resolved here (outside), checked again by address
(:mod:`agent.sandbox.allowlist`), and connected; from then on bytes are copied, never
read. Everything else gets ``403`` with one line, and a ``[sandbox] refused`` line in
the agent's log, counted in :attr:`HostProxy.refused`.

What it is not: a filter of content. A listed host gets whatever the session sends it
(the model's code, the project's files): listing a host trusts it with that.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from agent.sandbox.allowlist import HostAllowlist
from agent.sandbox.unix_server import UnixSocketServer, copy_stream
from common.schemas.sandbox_hosts import split_host_port

HEAD_LIMIT = 64 * 1024
"""The most a request's line and headers may take."""
HEAD_TIMEOUT_S = 30.0
CONNECT_TIMEOUT_S = 15.0
MAX_OPEN = 64
"""Connections carried at once, at most: a session that opens more (by mistake or to
exhaust the agent's file descriptors, two per connection) gets ``503`` until one closes."""
REFUSED_PREFIX = "[sandbox] refused"
"""Starts every refusal's log line (``[sandbox] refused CONNECT host:port: reason``)."""
FAILED_PREFIX = "[sandbox] proxy could not carry"
"""Starts the log line of a request that was malformed or whose listed host failed."""
_HOP_HEADERS = (b"proxy-connection:", b"proxy-authorization:")


class Refused(Exception):
    """A request the proxy will not carry: its status and its one line."""

    def __init__(self, status: int, target: str, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.target = target
        self.reason = reason


@dataclass(frozen=True)
class Destination:
    """Where one request goes, and what to send there first."""

    host: str
    port: int
    tunnel: bool
    """``CONNECT``: answer 200 and copy; otherwise the rewritten head is sent on."""
    head: bytes = b""


def parse_head(head: bytes) -> tuple[str, Destination]:
    """The method and destination of a proxy request's head (pure).

    Raises:
        Refused: not a proxy request this proxy carries (status 400).
    """
    line, _, rest = head.partition(b"\r\n")
    parts = line.decode("latin-1").split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise Refused(400, "?", "not an HTTP request line")
    method, target, version = parts
    if method == "CONNECT":
        try:
            host, port = split_host_port(target)
        except ValueError as e:
            raise Refused(400, target, str(e)) from None
        return method, Destination(host, port, tunnel=True)
    url = urlsplit(target)
    if url.scheme != "http" or not url.hostname:
        why = "use CONNECT for https" if url.scheme == "https" else "not an absolute http URL"
        raise Refused(400, target, why)
    try:
        port = url.port or 80
    except ValueError:
        raise Refused(400, target, "the URL's port is not a number") from None
    path = url.path or "/"
    if url.query:
        path += "?" + url.query
    kept = [h for h in rest.split(b"\r\n") if not h.lower().startswith(_HOP_HEADERS)]
    rewritten = f"{method} {path} {version}\r\n".encode("latin-1") + b"\r\n".join(kept)
    return method, Destination(url.hostname, port, tunnel=False, head=rewritten)


def _shown(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class HostProxy(UnixSocketServer):
    """``async with HostProxy(path, log):`` serves ``path`` until exit; :meth:`allow`
    sets the allowlist (empty at first: everything refused), :meth:`during` widens it by
    a session kind's hosts while a session of that kind runs."""

    def __init__(
        self,
        path: Path,
        log: Callable[[str], None],
        on_refusal: Callable[[], None] | None = None,
        *,
        max_open: int = MAX_OPEN,
    ) -> None:
        super().__init__(path, limit=HEAD_LIMIT, max_open=max_open, log=log)
        self.log: Callable[[str], None] = log
        self.on_refusal = on_refusal
        """Told of each refusal (the agent counts it in the workspace's policy counts)."""
        self.allowlist = HostAllowlist()
        """What may be reached now: the base, and the hosts of the kinds running."""
        self._base = HostAllowlist()
        self._by_kind: dict[str, HostAllowlist] = {}
        self._running: Counter[str] = Counter()
        self.refused = 0
        """Requests the allowlist refused since start (for the operator and the metrics)."""
        self.carried = 0
        """Connections made to a listed host since start."""

    def allow(
        self, entries: Iterable[str], by_kind: Mapping[str, Iterable[str]] | None = None
    ) -> None:
        """From now on ``entries`` (``host:port``) may be reached, and ``by_kind[kind]``
        too while a session of that kind runs (its MCP servers' hosts)."""
        self._base = HostAllowlist.of(entries)
        self._by_kind = {kind: HostAllowlist.of(hosts) for kind, hosts in (by_kind or {}).items()}
        self._refresh()

    @contextlib.contextmanager
    def during(self, kind: str) -> Iterator[None]:
        """While the block runs, ``kind``'s hosts may be reached too (sessions of one kind
        may run at once: the hosts stay until the last one ends)."""
        self._running[kind] += 1
        self._refresh()
        try:
            yield
        finally:
            self._running[kind] -= 1
            self._refresh()

    def _refresh(self) -> None:
        pairs = set(self._base.pairs)
        for kind, count in self._running.items():
            if count > 0 and kind in self._by_kind:
                pairs |= self._by_kind[kind].pairs
        self.allowlist = HostAllowlist(frozenset(pairs))

    def any_host(self) -> bool:
        """Whether some host may ever be reached (the base, or some kind's)."""
        return bool(self._base) or any(self._by_kind.values())

    def shown(self) -> str:
        """The base and each kind's hosts, for the agent's log."""
        parts = [", ".join(self._base.entries()) or "none"]
        for kind, hosts in sorted(self._by_kind.items()):
            if hosts:
                parts.append(f"during {kind} sessions also {', '.join(hosts.entries())}")
        return "; ".join(parts)

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._carry(reader, writer)
        except Refused as refusal:
            self._refuse(writer, refusal)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass  # the client went away: nothing to answer

    def turn_away(self, writer: asyncio.StreamWriter, reason: str) -> None:
        """Past ``max_open``: answer 503 without reading."""
        _answer(writer, 503, f"sandbox proxy: {reason}")

    def turned_away_line(self, reason: str) -> str:
        return f"{FAILED_PREFIX} a connection: {reason}"

    async def _carry(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(HEAD_TIMEOUT_S):
                head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            raise Refused(431, "?", f"request head over {HEAD_LIMIT} bytes") from None
        except TimeoutError:
            raise Refused(408, "?", f"no request head in {HEAD_TIMEOUT_S:g} s") from None
        method, where = parse_head(head)
        target = f"{method} {_shown(where.host, where.port)}"
        reason = self.allowlist.refusal(where.host, where.port)
        if reason is not None:
            raise Refused(403, target, reason)
        up_reader, up_writer = await self._connect(where, target)
        self.carried += 1
        try:
            if where.tunnel:
                writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
                await writer.drain()
            else:
                up_writer.write(where.head)
            await asyncio.gather(copy_stream(reader, up_writer), copy_stream(up_reader, writer))
        finally:
            up_writer.close()

    async def _connect(
        self, where: Destination, target: str
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Resolve here, outside, check every address, connect to a checked one."""
        loop = asyncio.get_running_loop()
        try:
            infos = await loop.getaddrinfo(where.host, where.port, type=socket.SOCK_STREAM)
        except OSError as e:
            raise Refused(502, target, f"cannot resolve {where.host}: {e}") from None
        addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
        for address in addresses:
            reason = self.allowlist.address_refusal(where.host, address)
            if reason is not None:
                raise Refused(403, target, reason)
        errors: list[str] = []
        for address in addresses:
            try:
                async with asyncio.timeout(CONNECT_TIMEOUT_S):
                    return await asyncio.open_connection(address, where.port)
            except (OSError, TimeoutError) as e:
                errors.append(f"{address}: {e or type(e).__name__}")
        raise Refused(502, target, f"cannot connect ({'; '.join(errors) or 'no address'})")

    def _refuse(self, writer: asyncio.StreamWriter, refusal: Refused) -> None:
        line = f"sandbox proxy: {refusal.target}: {refusal.reason}"
        if refusal.status == 403:  # the allowlist said no: a sandbox refusal
            self.refused += 1
            self.log(f"{REFUSED_PREFIX} {refusal.target}: {refusal.reason}")
            if self.on_refusal is not None:
                self.on_refusal()
        else:  # malformed, or the listed host could not be reached
            self.log(f"{FAILED_PREFIX} {refusal.target}: {refusal.reason}")
        _answer(writer, refusal.status, line)


_REASONS = {
    400: "Bad Request",
    403: "Forbidden",
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def _answer(writer: asyncio.StreamWriter, status: int, line: str) -> None:
    """An HTTP answer of ``status`` whose body is ``line``; the connection closes after it."""
    body = (line + "\n").encode()
    with contextlib.suppress(ConnectionError, OSError):
        writer.write(
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Refused')}\r\n"
            f"Content-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )

"""A local forwarding proxy for the model endpoint: the Claude CLI never holds the key.

Why: the CLI's environment is readable by every command the model runs
(``/proc/PID/environ``), so a key given to the CLI is a key given to the model.
The agent instead listens on ``127.0.0.1`` (random port), gives the CLI that
address as ``ANTHROPIC_BASE_URL`` with a dummy ``ANTHROPIC_API_KEY``, and
forwards each request to the real endpoint with the real auth headers in place
of the dummy ones. Answers (SSE streams included) are passed through chunk by
chunk, as they arrive.

The model's own commands reach this proxy too (through the sandbox's relay and
bridge, indistinguishable from the CLI). So it forwards only the Messages API
(:mod:`agent.core.endpoint.endpoint_rules`), and, given an :class:`EndpointMeter`, only
while one of the agent's sessions runs, charging every answer's tokens and cost
to that session (:mod:`agent.core.endpoint.endpoint_meter`). It asks the endpoint for
uncompressed answers so that every answer's ``usage`` can be read.

With several sessions at once, each session's window gets an entrance of its own
(:meth:`ModelProxy.entrance`): a Unix socket the proxy serves in a private folder,
bound into that session's sandbox alone. What arrives on it is charged to that
window and no other, whatever the request says: the kernel tells which listening
socket a connection came in by, and the model reaches only the one in its sandbox.

When the endpoint cannot be reached, the proxy answers 502 with an Anthropic
error body saying why, and the header :data:`PROXY_ERROR_HEADER` naming the kind
(``refused``, ``dns``, ``unreachable``, ``timeout``, ``other``), which the
endpoint probe (:mod:`agent.core.endpoint.model_probe`) turns into one line.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import logging
import socket
import time
import zlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal
from urllib.parse import urlsplit

import httpx2

from agent.core.endpoint import endpoint_rules
from agent.core.endpoint.endpoint_meter import EndpointMeter, EndpointSpend
from agent.core.endpoint.endpoint_rules import Refusal
from agent.core.endpoint.endpoint_usage import read_usage, requested_model
from agent.core.endpoint.request_framing import (
    CHUNKED,
    RequestHead,
    body_framing,
    chunk_end,
    chunk_size,
    parse_head,
    trailer_line,
)
from agent.core.log import AgentLog
from agent.core.trace import trace
from agent.core.trace.trace import TraceSession
from agent.core.trace.trace_wire import decode_body, record_exchange
from common.credentials import API_KEY, AUTH_TOKEN, BASE_URL, OAUTH_TOKEN
from common.errors import SessionError

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.anthropic.com"
DUMMY_KEY = "harness-proxy"
"""The key the CLI is given: worthless, the proxy replaces it."""
PROXY_ERROR_HEADER = "x-harness-proxy-error"
OAUTH_BETA = "oauth-2025-04-20"
"""The beta Anthropic's API asks for with OAuth tokens from ``claude setup-token``."""
CONNECT_TIMEOUT_S = 8.0
READ_TIMEOUT_S = 600.0
"""Between two chunks of an answer: SSE streams send pings, so this is generous."""
MAX_HEAD_BYTES = 64 * 1024
ENTRANCE_MAX_OPEN = 32
"""Connections one session's own entrance carries at once (as the shared bridge does,
:data:`agent.sandbox.bridge.MAX_OPEN`): each costs the agent file descriptors."""
MAX_BODY_BYTES = 32 * 1024 * 1024
"""The Messages API's own request limit (32 MB): a larger body is refused, not buffered."""
MAX_HELD_BYTES = 2 * MAX_BODY_BYTES
"""Request bodies held at once, all connections together: 32 connections of 30 MB each
took 2 GB of the agent's memory (the agent runs outside every session's limits)."""

ErrorKind = Literal["refused", "dns", "unreachable", "timeout", "other"]
AuthKind = Literal["api_key", "auth_token", "oauth", "none"]

_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
    }
)
_AUTH_HEADERS = frozenset({"x-api-key", "authorization"})


@dataclass(frozen=True)
class Upstream:
    """The real endpoint and how to authenticate there."""

    base_url: str
    auth: AuthKind
    secret: str = ""

    @classmethod
    def from_credentials(cls, credentials: Mapping[str, str]) -> Upstream:
        """The endpoint of ``credentials``: API key first, then auth token, then OAuth token."""
        base = credentials.get(BASE_URL) or DEFAULT_BASE_URL
        order: tuple[tuple[str, AuthKind], ...] = (
            (API_KEY, "api_key"),
            (AUTH_TOKEN, "auth_token"),
            (OAUTH_TOKEN, "oauth"),
        )
        for name, kind in order:
            if credentials.get(name):
                return cls(base.rstrip("/"), kind, credentials[name])
        return cls(base.rstrip("/"), "none")

    @property
    def variable(self) -> str:
        """The variable the secret came from (what to set when it is refused)."""
        return {"api_key": API_KEY, "auth_token": AUTH_TOKEN, "oauth": OAUTH_TOKEN}.get(
            self.auth, API_KEY
        )

    def __repr__(self) -> str:  # never show the secret
        return f"Upstream({self.base_url!r}, {self.auth})"


def upstream_headers(headers: list[tuple[str, str]], upstream: Upstream) -> list[tuple[str, str]]:
    """The client's headers for the real endpoint: hop-by-hop and dummy auth replaced."""
    kept = [
        (name, value)
        for name, value in headers
        if name.lower() not in _HOP_BY_HOP and name.lower() not in _AUTH_HEADERS
    ]
    if upstream.auth == "api_key":
        kept.append(("x-api-key", upstream.secret))
    elif upstream.auth in ("auth_token", "oauth"):
        kept.append(("authorization", f"Bearer {upstream.secret}"))
    if upstream.auth == "oauth":
        betas = [v.strip() for n, v in kept if n.lower() == "anthropic-beta" for v in v.split(",")]
        kept = [(n, v) for n, v in kept if n.lower() != "anthropic-beta"]
        kept.append(("anthropic-beta", ",".join([b for b in betas if b] + [OAUTH_BETA])))
    return kept


def classify(error: httpx2.HTTPError) -> tuple[ErrorKind, str]:
    """The kind of a failure to reach the endpoint, and its own words."""
    if isinstance(error, httpx2.TimeoutException):
        return "timeout", f"no answer within {CONNECT_TIMEOUT_S:g} s"
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return "dns", str(cause)
        if isinstance(cause, ConnectionRefusedError):
            return "refused", str(cause)
        if isinstance(cause, OSError) and cause.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
            return "unreachable", str(cause)
        cause = cause.__cause__ or cause.__context__
    text = str(error)
    lowered = text.lower()
    if "connection refused" in lowered:
        return "refused", text
    if "name or service not known" in lowered or "name resolution" in lowered:
        return "dns", text
    if "unreachable" in lowered:
        return "unreachable", text
    return "other", text or type(error).__name__


class ModelProxy:
    """``async with ModelProxy(upstream, log) as base_url:`` serves on 127.0.0.1 until exit."""

    def __init__(
        self,
        upstream: Upstream,
        agent_log: AgentLog | None = None,
        meter: EndpointMeter | None = None,
    ) -> None:
        self.upstream = upstream
        self._log = agent_log
        self.meter = meter
        """Opens the endpoint only during sessions and charges them; ``None``: always open
        (the paths are filtered all the same)."""
        self._server: asyncio.Server | None = None
        self._client: httpx2.AsyncClient | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self.requests = 0
        """How many requests were forwarded (or answered 502)."""
        self._held = _HeldBytes()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, for the CLI's ``ANTHROPIC_BASE_URL``."""
        assert self._server is not None, "not started"
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def __aenter__(self) -> str:
        timeout = httpx2.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S)
        self._client = httpx2.AsyncClient(timeout=timeout, follow_redirects=False)
        try:
            self._server = await asyncio.start_server(
                self._serve, "127.0.0.1", 0, limit=MAX_HEAD_BYTES
            )
        except OSError as e:
            await self._client.aclose()
            raise SessionError(f"cannot start the model proxy: {e}") from e
        return self.url

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.wait(set(self._connections), timeout=5)
        if self._server is not None:
            await self._server.wait_closed()
        if self._client is not None:
            await self._client.aclose()

    @contextlib.asynccontextmanager
    async def entrance(self, window: EndpointSpend, path: Path) -> AsyncIterator[Path]:
        """Serve ``window`` alone on a Unix socket at ``path`` (mode 0600) until the block ends.

        ``window`` is one the meter opened with ``own_entrance``; ``path`` lies in a folder
        only the agent can enter, whose socket the caller binds into one sandbox. Requests
        on it are charged to ``window``; once the window is closed they are refused, and
        when the block ends the socket is gone. Answers still streaming on it go on (the
        session's end waits for them: :meth:`EndpointMeter.settle`).

        Raises:
            SessionError: the socket cannot be served there.
        """
        if self.meter is None or not window.own_entrance:
            raise ValueError(f"{window.label!r} is not a metered window with its own entrance")

        carried = 0
        turned_away = 0

        async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal carried, turned_away
            if carried >= ENTRANCE_MAX_OPEN:  # a program of the session holding connections
                if turned_away == 0 and self._log is not None:
                    self._log(
                        f"[endpoint] {window.label}: refused a connection, "
                        f"{ENTRANCE_MAX_OPEN} are open already"
                    )
                turned_away += 1
                writer.close()
                return
            carried += 1
            try:
                await self._serve(reader, writer, via=window)
            finally:
                carried -= 1
                if carried == 0:
                    turned_away = 0

        try:
            server = await asyncio.start_unix_server(serve, path=str(path), limit=MAX_HEAD_BYTES)
            _owner_only(path)
        except OSError as e:
            raise SessionError(f"cannot serve the model endpoint at {path}: {e}") from e
        try:
            yield path
        finally:
            server.close()
            path.unlink(missing_ok=True)  # noqa: ASYNC240 - one unlink on the agent's own disk

    async def _serve(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        via: EndpointSpend | None = None,
    ) -> None:
        """One client connection; ``via``: the window whose own entrance it came in by."""
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while await self._one_request(reader, writer, via):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as e:
            log.debug("proxy connection ended: %s", e)
        except asyncio.CancelledError:
            # Only the proxy's end cancels a connection. Python 3.11's stream server reports
            # a cancelled handler as an unhandled exception (with a traceback): end quietly.
            log.debug("proxy connection closed with the proxy")
        except ValueError as e:  # a malformed head, an ambiguous framing, an absolute URL
            refused = endpoint_rules.malformed(str(e))
            if self.meter is not None:
                self.meter.refuse(refused)
            elif self._log is not None:
                self._log(f"[endpoint] model endpoint refused a request: {refused.message}")
            else:
                log.warning("proxy got a malformed request: %s", e)
            await self._refuse(writer, refused, keep_alive=False)
        finally:
            self._connections.discard(task)
            writer.close()

    async def _one_request(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        via: EndpointSpend | None = None,
    ) -> bool:
        """Forward one request and its answer; whether the connection stays open."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as e:
            if e.partial.strip():
                raise
            return False  # the client closed an idle connection
        request = parse_head(head)
        method, target, headers = request.method, request.target, request.headers
        keep_alive = request.header("connection").lower() != "close"
        held = _Held(self._held)
        try:
            body = await _read_body(reader, request, MAX_BODY_BYTES, held)
        except _TooLarge:
            held.release()
            await self._refuse(writer, endpoint_rules.too_large(MAX_BODY_BYTES), keep_alive=False)
            return False
        except _HeldTooMuch:
            held.release()
            if self._log is not None:
                self._log(
                    f"[endpoint] model endpoint refused a request: {MAX_HELD_BYTES} bytes of "
                    "requests held already"
                )
            await self._refuse(
                writer, endpoint_rules.held_too_much(MAX_HELD_BYTES), keep_alive=False
            )
            return False
        except BaseException:
            held.release()
            raise
        window, refused = self._admit(method, target, via)
        if refused is not None:
            held.release()
            await self._refuse(writer, refused, keep_alive=keep_alive)
            return keep_alive
        try:
            return await self._forward(method, target, headers, body, window, writer, keep_alive)
        finally:
            held.release()
            if self.meter is not None and window is not None:
                self.meter.release(window)

    async def _forward(
        self,
        method: str,
        target: str,
        headers: list[tuple[str, str]],
        body: bytes,
        window: EndpointSpend | None,
        writer: asyncio.StreamWriter,
        keep_alive: bool,
    ) -> bool:
        """Send the request on, relay the answer, charge it; whether the connection stays."""
        self.requests += 1
        started = time.monotonic()
        url = self.upstream.base_url + target
        sent_headers = [*upstream_headers(headers, self.upstream), ("accept-encoding", "identity")]
        request = self._client_or_fail().build_request(
            method, url, headers=sent_headers, content=body
        )
        try:
            response = await self._client_or_fail().send(request, stream=True)
        except httpx2.HTTPError as e:
            kind, detail = classify(e)
            await _send_unreachable(writer, self.upstream.base_url, kind, detail, keep_alive)
            if self._log is not None:
                self._log(f"model proxy: {self.upstream.base_url} {kind}: {detail}")
            return keep_alive
        answer = bytearray()
        try:
            client_stayed = await _relay(response, writer, head_only=method == "HEAD", sink=answer)
        except httpx2.HTTPError as e:  # the endpoint failed mid-answer: the client sees it cut
            log.warning("model proxy: answer from %s cut off: %s", self.upstream.base_url, e)
            client_stayed = False
        finally:
            await response.aclose()
        cost = self._charge(window, target, body, response, bytes(answer))
        record_exchange(
            target,
            body,
            response.status_code,
            bytes(answer),
            dict(response.headers),
            int((time.monotonic() - started) * 1000),
            session=self._traced_as(window),
            cost_usd=cost,
        )
        return keep_alive and client_stayed

    def _admit(
        self, method: str, target: str, via: EndpointSpend | None
    ) -> tuple[EndpointSpend | None, Refusal | None]:
        """The window to charge, or why the request is refused (logged; counted by the meter)."""
        if self.meter is not None:
            return self.meter.admit(method, target, via)
        refused = endpoint_rules.refusal(method, target)
        if refused is not None and self._log is not None:
            self._log(f"[endpoint] model endpoint refused a request: {refused.message}")
        return None, refused

    async def _refuse(
        self, writer: asyncio.StreamWriter, refused: Refusal, *, keep_alive: bool
    ) -> None:
        writer.write(endpoint_rules.error_answer(refused, keep_alive=keep_alive))
        with contextlib.suppress(ConnectionError):
            await writer.drain()

    def _charge(
        self,
        window: EndpointSpend | None,
        target: str,
        body: bytes,
        response: httpx2.Response,
        answer: bytes,
    ) -> float | None:
        """Charge the answer to its window; its cost (``None`` without a meter)."""
        if self.meter is None or window is None:
            return None
        try:
            payload = decode_body(answer, response.headers.get("content-encoding", ""))
        except zlib.error:
            payload = b""  # unreadable: charged as a request, counted as unreadable
        usage = read_usage(payload, response.headers.get("content-type", ""))
        return self.meter.charge(window, usage, requested_model(body), response.status_code, target)

    def _traced_as(self, window: EndpointSpend | None) -> TraceSession | None:
        """The trace session of a request: its window's, the entrance it came in by telling
        which (as for its charge); without a meter, which opens one window at a time, the
        one session running (none when several run: the proxy does not guess)."""
        if self.meter is not None:
            return window.trace_session if window is not None else None
        tracer = trace.current()
        return tracer.sole_session() if tracer is not None else None

    def _client_or_fail(self) -> httpx2.AsyncClient:
        assert self._client is not None, "not started"
        return self._client


def _owner_only(path: Path) -> None:
    """Only the agent's user may connect to ``path`` (its folder is the agent's alone too)."""
    path.chmod(0o600)


class _TooLarge(Exception):
    """A request body over the limit: answered 413 and the connection closed."""


class _HeldTooMuch(Exception):
    """A body that would take the bytes held at once past :data:`MAX_HELD_BYTES`."""


@dataclass
class _HeldBytes:
    """The request bodies the proxy holds at once, all connections together."""

    total: int = 0


class _Held:
    """One request's share of :class:`_HeldBytes`: taken before its bytes are read,
    given back once it is answered (or refused)."""

    def __init__(self, pool: _HeldBytes) -> None:
        self._pool = pool
        self._taken = 0

    def take(self, size: int) -> None:
        if self._pool.total + size > MAX_HELD_BYTES:
            raise _HeldTooMuch
        self._pool.total += size
        self._taken += size

    def release(self) -> None:
        self._pool.total -= self._taken
        self._taken = 0


async def _read_body(
    reader: asyncio.StreamReader, head: RequestHead, limit: int, held: _Held
) -> bytes:
    """The request's body, by its framing (chunked or ``content-length``), at most ``limit``,
    its bytes taken from ``held`` before they are read.

    Raises:
        _TooLarge: the body is (or announces to be) longer than ``limit``.
        _HeldTooMuch: the proxy holds too many bytes of other requests to take these.
        BadFraming: a framing open to two readings (:mod:`agent.core.endpoint.request_framing`).
    """
    framing = body_framing(head)
    if framing == CHUNKED:
        data = bytearray()
        while size := chunk_size(await reader.readuntil(b"\r\n")):
            if len(data) + size > limit:
                raise _TooLarge
            held.take(size)
            data += await reader.readexactly(size)
            chunk_end(await reader.readexactly(2))
        while trailer_line(await reader.readuntil(b"\r\n")):
            pass
        return bytes(data)
    assert isinstance(framing, int)
    if framing > limit:
        raise _TooLarge
    held.take(framing)
    return await reader.readexactly(framing) if framing > 0 else b""


async def _relay(
    response: httpx2.Response,
    writer: asyncio.StreamWriter,
    *,
    head_only: bool,
    sink: bytearray | None = None,
) -> bool:
    """Status, headers, then the body re-framed as chunks, each sent as it arrives
    (and kept in ``sink``, for the trace and the usage); whether the client stayed.

    A client that goes away mid-answer does not end the reading: the answer is read
    to its end, so that its ``usage`` (in the last events of a stream) is charged.
    """
    no_body = head_only or response.status_code in (204, 304)
    lines = [f"HTTP/1.1 {response.status_code} {response.reason_phrase}"]
    lines += [
        f"{name}: {value}"
        for name, value in response.headers.multi_items()
        if name.lower() not in _HOP_BY_HOP
    ]
    lines.append("content-length: 0" if no_body else "transfer-encoding: chunked")
    stayed = await _send(writer, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    if no_body:
        return stayed
    async for chunk in response.aiter_raw():
        if chunk:
            if sink is not None:
                sink += chunk
            if stayed:
                stayed = await _send(writer, b"%x\r\n%s\r\n" % (len(chunk), chunk))
    return stayed and await _send(writer, b"0\r\n\r\n")


async def _send(writer: asyncio.StreamWriter, data: bytes) -> bool:
    """Write ``data``; whether the client is still there."""
    try:
        writer.write(data)
        await writer.drain()
    except (ConnectionError, OSError):
        return False
    return not writer.is_closing()


async def _send_unreachable(
    writer: asyncio.StreamWriter, base_url: str, kind: ErrorKind, detail: str, keep_alive: bool
) -> None:
    """A 502 with an Anthropic error body: the CLI shows its message, the probe its kind."""
    host = urlsplit(base_url).hostname or base_url
    words = {
        "refused": "refused the connection",
        "dns": f"cannot be resolved (host {host} not found)",
        "unreachable": "is unreachable",
        "timeout": f"did not accept a connection within {CONNECT_TIMEOUT_S:g} s",
        "other": "could not be reached",
    }[kind]
    message = f"model endpoint {base_url} {words} ({detail})"
    body = json.dumps({"type": "error", "error": {"type": "api_error", "message": message}})
    payload = body.encode()
    head = (
        "HTTP/1.1 502 Bad Gateway\r\n"
        "content-type: application/json\r\n"
        f"{PROXY_ERROR_HEADER}: {kind}\r\n"
        f"content-length: {len(payload)}\r\n"
        f"connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    writer.write(head.encode("latin-1") + payload)
    with contextlib.suppress(ConnectionError):
        await writer.drain()

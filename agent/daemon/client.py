"""The async client the CLI and the TUI talk to the daemon with.

``async with DaemonClient.connect() as client:`` opens the socket, reads the
``Hello`` and checks the protocol version. Requests on one client run one at a
time; :meth:`DaemonClient.subscribe` turns the connection into a stream, so a
program that both watches and commands opens two clients.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ValidationError

from agent.daemon.address import checked_socket_path, not_running_message
from agent.daemon.framing import encode_frame, read_frame
from common.errors import DaemonError, ProtocolError
from common.paths import harness_home
from common.protocol_wire import MAX_FRAME_BYTES, PROTOCOL_VERSION
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.protocol import (
    AgentEvent,
    AgentInfo,
    AgentReply,
    AgentsReply,
    ErrorReply,
    Hello,
    ListRequest,
    OkReply,
    RemoveRequest,
    Reply,
    ReplyAdapter,
    Request,
    ResumeRequest,
    SetAutoAcceptRequest,
    ShutdownRequest,
    StartRequest,
    StatusRequest,
    StopRequest,
    SubscribeRequest,
)
from common.schemas.spec import AgentSpec

log = logging.getLogger(__name__)

#: Replies (a long agent list) may exceed a request's size; read generously.
READ_LIMIT = 16 * MAX_FRAME_BYTES

ReplyT = TypeVar("ReplyT", bound=BaseModel)


class DaemonClient:
    """One connection to the daemon."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hello: Hello
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.hello = hello
        """The daemon's greeting (its pid and protocol version)."""
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()
        self._streaming = False

    @classmethod
    @asynccontextmanager
    async def connect(cls, socket_path: Path | None = None) -> AsyncIterator[DaemonClient]:
        """Connect to the daemon on ``socket_path`` (default: the one of ``HARNESS_HOME``).

        Raises:
            DaemonError: nothing listens on the socket.
            ProtocolError: the daemon did not greet, or speaks another protocol version.
        """
        path = socket_path or checked_socket_path(harness_home())
        try:
            reader, writer = await asyncio.open_unix_connection(str(path), limit=READ_LIMIT)
        except (FileNotFoundError, ConnectionRefusedError) as e:
            raise DaemonError(not_running_message(path)) from e
        try:
            hello = await _read_hello(reader)
            yield cls(reader, writer, hello)
        finally:
            writer.close()
            try:
                await writer.wait_closed()
            except ConnectionError as e:
                log.debug("connection ended uncleanly: %s", e)

    async def list_agents(self) -> list[AgentInfo]:
        """Every agent the daemon knows, oldest first."""
        reply = await self._call(ListRequest(id=next(self._ids)), AgentsReply)
        return reply.agents

    async def start(
        self,
        spec: AgentSpec,
        credentials: Mapping[str, str] | None = None,
        *,
        fresh: bool = False,
        telemetry: Mapping[str, str] | None = None,
    ) -> AgentInfo:
        """Validate ``spec`` and start an agent for it, with this client's Claude credentials
        (``fresh``: in a new workspace) and ``OTEL_*`` settings (:mod:`common.telemetry`).

        Raises:
            DaemonError: with the daemon's reason (bad spec, already running, no
                credentials for a Claude model, ...).
        """
        request = StartRequest(
            id=next(self._ids),
            spec=spec,
            credentials=dict(credentials or {}),
            fresh=fresh,
            telemetry=dict(telemetry or {}),
        )
        return (await self._call(request, AgentReply)).agent

    async def resume(
        self,
        name: str,
        credentials: Mapping[str, str] | None = None,
        telemetry: Mapping[str, str] | None = None,
    ) -> AgentInfo:
        """Start a stopped or failed agent again, under its name, where it ended (with this
        client's credentials and ``OTEL_*`` settings).

        Raises:
            DaemonError: with the daemon's reason (running, done, unknown, ...).
        """
        request = ResumeRequest(
            id=next(self._ids),
            agent=name,
            credentials=dict(credentials or {}),
            telemetry=dict(telemetry or {}),
        )
        return (await self._call(request, AgentReply)).agent

    async def stop(self, name: str, client: Literal["cli", "tui"] = "cli") -> AgentInfo:
        """Stop an agent (name or unique prefix); returns once its process has exited.

        ``client``: who asks (the agent says it was stopped by ``<client>:<user>``).
        """
        request = StopRequest(id=next(self._ids), agent=name, client=client)
        return (await self._call(request, AgentReply)).agent

    async def status(self, name: str) -> AgentInfo:
        """One agent, freshly read."""
        request = StatusRequest(id=next(self._ids), agent=name)
        return (await self._call(request, AgentReply)).agent

    async def remove(self, name: str) -> None:
        """Forget a finished agent; refused while it runs."""
        await self._call(RemoveRequest(id=next(self._ids), agent=name), OkReply)

    async def set_auto_accept(self, name: str, rules: AutoAcceptRules | bool) -> AgentInfo:
        """Set one agent's auto-accept rules (``True``/``False``: all or none), from its
        next checkpoint on."""
        chosen = AutoAcceptRules.model_validate(rules)
        request = SetAutoAcceptRequest(id=next(self._ids), agent=name, rules=chosen)
        return (await self._call(request, AgentReply)).agent

    async def shutdown(self) -> None:
        """Stop the daemon (agents keep running); returns once it has closed this connection.

        The daemon removes its socket and status file before it drops its clients,
        so after this returns the daemon counts as not running.
        """
        await self._call(ShutdownRequest(id=next(self._ids)), OkReply)
        while (line := await read_frame(self._reader, READ_LIMIT)) is not None:
            log.debug("frame after shutdown ignored: %r", line[:200])

    async def subscribe(self) -> AsyncIterator[list[AgentInfo] | AgentEvent]:
        """The agent list once, then one :class:`AgentEvent` per change, until cancelled.

        This connection serves nothing else from then on.

        Raises:
            DaemonError: the daemon refused, or closed the connection (it stopped).
        """
        async with self._lock:
            self._check_not_streaming()
            self._streaming = True
            request = SubscribeRequest(id=next(self._ids))
            await self._send(request)
            snapshot = _expect(await self._read_reply(request.id), AgentsReply)
        yield snapshot.agents
        while True:
            yield _expect(await self._read_reply(request.id), AgentEvent)

    async def _call(self, request: Request, reply_type: type[ReplyT]) -> ReplyT:
        async with self._lock:
            self._check_not_streaming()
            await self._send(request)
            return _expect(await self._read_reply(request.id), reply_type)

    def _check_not_streaming(self) -> None:
        if self._streaming:
            raise ProtocolError(
                "this connection carries a subscription; open another DaemonClient for requests"
            )

    async def _send(self, request: BaseModel) -> None:
        try:
            self._writer.write(encode_frame(request))
            await self._writer.drain()
        except ConnectionError as e:
            raise DaemonError(f"lost the connection to the daemon ({e})") from e

    async def _read_reply(self, request_id: int) -> Reply:
        try:
            reply = await _read_reply(self._reader)
        except ConnectionError as e:
            raise DaemonError(f"lost the connection to the daemon ({e})") from e
        if isinstance(reply, ErrorReply):
            raise DaemonError(reply.message)
        if isinstance(reply, Hello) or reply.id != request_id:
            raise ProtocolError(f"expected a reply to request {request_id}, got {reply!r}")
        return reply


async def _read_hello(reader: asyncio.StreamReader) -> Hello:
    hello = await _read_reply(reader)
    if isinstance(hello, ErrorReply):  # for example a peer of another uid, refused
        raise DaemonError(hello.message)
    if not isinstance(hello, Hello):
        raise ProtocolError(f"the daemon did not greet with hello but with {hello.type}")
    if hello.protocol_version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"the daemon (pid {hello.daemon_pid}) speaks protocol {hello.protocol_version}, "
            f"this client {PROTOCOL_VERSION}; restart it with `harness daemon stop` and start"
        )
    return hello


async def _read_reply(reader: asyncio.StreamReader) -> Reply:
    line = await read_frame(reader, READ_LIMIT)
    if line is None:
        raise DaemonError("the daemon closed the connection")
    try:
        return ReplyAdapter.validate_json(line)
    except ValidationError as e:
        raise ProtocolError(f"unreadable frame from the daemon: {e.errors()[0]['msg']}") from e


def _expect(reply: Reply, reply_type: type[ReplyT]) -> ReplyT:
    if not isinstance(reply, reply_type):
        raise ProtocolError(f"expected {reply_type.__name__}, got {type(reply).__name__}")
    return reply

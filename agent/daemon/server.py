"""The daemon's socket: NDJSON frames in, one reply (or a stream) out per request.

Every connection is greeted with ``Hello``, once the kernel says the peer runs
as the daemon's own uid (``SO_PEERCRED``) and is a client, not a process of an
agent: not in another PID or mount namespace than the daemon (every sandbox is),
not descended from a supervised agent, not in an agent's session or process group
(:mod:`agent.daemon.peer_rules`). Any other peer gets one ``ErrorReply``, the
connection is closed, and the refusal is logged and counted (``Hello`` carries the
count). A broken request (not JSON, nested too deeply,
unknown type, failing the schema, longer than ``MAX_FRAME_BYTES``) is answered
with an ``ErrorReply``; the connection and the daemon stay up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, assert_never

from pydantic import BaseModel, ValidationError

from agent.daemon.address import checked_socket_path
from agent.daemon.framing import FrameTooLargeError, encode_frame, read_frame
from agent.daemon.home import (
    already_running_message,
    claim_home,
    ensure_home,
    read_status,
)
from agent.daemon.lifecycle import daemon_running
from agent.daemon.peer import own_namespaces, peer_process, peer_uid
from agent.daemon.peer_rules import REFUSAL_MESSAGE, refusal_reason
from agent.daemon.supervisor import Supervisor
from common.atomic import cleanup_orphans, write_model
from common.errors import DaemonError, HarnessError
from common.paths import daemon_status_path
from common.protocol_wire import MAX_FRAME_BYTES
from common.schemas.daemon_state import DaemonStatusFile
from common.schemas.protocol import (
    AgentEvent,
    AgentInfo,
    AgentReply,
    AgentsReply,
    AnsweredReply,
    AnswerRequest,
    ErrorReply,
    Hello,
    ListRequest,
    OkReply,
    RemoveRequest,
    Request,
    RequestAdapter,
    ResumeRequest,
    SetAutoAcceptRequest,
    ShutdownRequest,
    StartRequest,
    StatusRequest,
    StopRequest,
    SubscribeRequest,
)
from common.workspace.answer import who

log = logging.getLogger(__name__)

SOCKET_MODE = 0o600

#: A subscriber that lets this much pile up unread is cut off rather than buffered forever.
MAX_UNREAD_BYTES = 16 * MAX_FRAME_BYTES

#: Seconds a client's request may still run at shutdown before it is cancelled.
CLOSE_GRACE = 1.0


class DaemonServer:
    """Listens on the socket of ``home`` and serves the supervisor's agents."""

    def __init__(self, supervisor: Supervisor, home: Path) -> None:
        self._supervisor = supervisor
        self._home = home
        self._socket = checked_socket_path(home)
        self._server: asyncio.Server | None = None
        self._lock_fd: int | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._close_task: asyncio.Task[None] | None = None
        self._closed = asyncio.Event()
        self._namespaces = own_namespaces()
        self._refused = 0

    @property
    def refused_connections(self) -> int:
        """Connections refused since the daemon started (another uid, or not a client)."""
        return self._refused

    @property
    def socket_path(self) -> Path:
        """Where clients connect."""
        return self._socket

    async def start(self) -> None:
        """Claim the home folder, adopt agents, listen and publish ``daemon.json``.

        Raises:
            DaemonError: another daemon is running, or the socket path is unusable.
            StateFileError: the registry is corrupted.
        """
        ensure_home(self._home)
        self._lock_fd = claim_home(self._home)
        try:
            running = daemon_running(self._home)
            if running is not None:
                raise DaemonError(already_running_message(self._home, running))
            for orphan in cleanup_orphans(self._home):
                log.info("removed leftover temp file %s", orphan)
            await self._supervisor.start()
            if self._socket.exists() or self._socket.is_symlink():
                log.info("removing stale socket %s", self._socket)
                self._socket.unlink()
            self._server = await asyncio.start_unix_server(
                self._serve_connection, path=str(self._socket), limit=MAX_FRAME_BYTES
            )
            self._socket.chmod(SOCKET_MODE)
            write_model(
                daemon_status_path(self._home),
                DaemonStatusFile(pid=os.getpid(), socket=self._socket),
            )
        except BaseException:
            await self.close()
            raise
        log.info("daemon %d listening on %s", os.getpid(), self._socket)

    def request_shutdown(self) -> None:
        """Start closing without waiting for it (a ``shutdown`` request, SIGTERM).

        The agents keep running; the next daemon adopts them.
        """
        if self._close_task is None:
            self._close_task = asyncio.create_task(self._close(), name="daemon shutdown")

    async def wait_closed(self) -> None:
        """Return once the daemon has closed, however that was asked for.

        Raises:
            Exception: whatever went wrong while closing.
        """
        await self._closed.wait()
        assert self._close_task is not None
        await self._close_task

    async def close(self) -> None:
        """Close now and wait until that is done; calling it again waits for the same close."""
        self.request_shutdown()
        assert self._close_task is not None
        await asyncio.shield(self._close_task)

    async def _close(self) -> None:
        """Stop listening, remove the socket and status file, then drop the clients.

        Clients are dropped last, so a client that sees its connection end knows
        the daemon's files are already gone.
        """
        try:
            await self._release()
            log.info("daemon %d stopped", os.getpid())
        finally:
            self._closed.set()

    async def _release(self) -> None:
        if self._server is not None:
            self._server.close()
            status = daemon_status_path(self._home)
            if (current := read_status(self._home)) is not None and current.pid == os.getpid():
                status.unlink()
            with contextlib.suppress(FileNotFoundError):  # someone removed it already
                self._socket.unlink()
        await self._supervisor.close()
        for writer in list(self._writers):
            writer.close()  # an idle client's handler then reads the end of its stream
        if self._connections:
            _, busy = await asyncio.wait(set(self._connections), timeout=CLOSE_GRACE)
            for task in busy:
                task.cancel()
            if busy:
                await asyncio.wait(busy)
        if self._server is not None:
            await self._server.wait_closed()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # --- connections -----------------------------------------------------------------

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        self._writers.add(writer)
        connection = _Connection(writer)
        try:
            refusal = self._refusal(writer.get_extra_info("socket"))
            if refusal is not None:
                self._refused += 1
                await connection.send(ErrorReply(id=None, message=refusal))
                return
            await connection.send(Hello(daemon_pid=os.getpid(), refused_connections=self._refused))
            while (line := await self._next_line(reader, connection)) is not None:
                if line.strip():
                    await self._answer(line, connection)
        except (ConnectionResetError, BrokenPipeError) as e:
            log.debug("client went away: %s", e)
        except asyncio.CancelledError:
            if self._close_task is None:
                raise
            # Cancelled by our own close: end normally, so that asyncio 3.11's
            # start_server callback does not report the cancellation as an error.
            log.warning("cut off a request still running at shutdown")
        finally:
            connection.unsubscribe()
            self._writers.discard(writer)
            self._connections.discard(task)
            writer.close()

    def _refusal(self, sock: socket.socket | None) -> str | None:
        """What to tell a peer that may not be served (logged here), ``None`` for a client.

        Runs before anything is read from the peer, on the event loop: a few small
        ``/proc`` reads (see :mod:`agent.daemon.peer`).
        """
        uid = peer_uid(sock)
        if uid != os.getuid():
            log.warning("refused a connection from uid %s", uid)
            return f"refused: the daemon serves uid {os.getuid()} only, not uid {uid}"
        try:
            peer = peer_process(sock)
        except (OSError, ValueError) as e:  # /proc said something unexpected: fail closed
            log.warning("could not read a peer's process: %s", e)
            peer = None
        reason = refusal_reason(self._namespaces, peer, self._supervisor.agent_processes())
        if reason is None:
            return None
        log.warning(
            "refused a connection from pid %s (%s): %s; refused so far: %d",
            peer.pid if peer else "?",
            _command_name(peer.pid) if peer else "?",
            reason,
            self._refused + 1,
        )
        return REFUSAL_MESSAGE

    async def _next_line(
        self, reader: asyncio.StreamReader, connection: _Connection
    ) -> bytes | None:
        """The next request line; an oversized one is answered here and skipped."""
        while True:
            try:
                return await read_frame(reader, MAX_FRAME_BYTES)
            except FrameTooLargeError as e:
                await connection.send(ErrorReply(id=None, message=str(e)))

    async def _answer(self, line: bytes, connection: _Connection) -> None:
        request_or_error = _parse(line)
        if isinstance(request_or_error, ErrorReply):
            await connection.send(request_or_error)
            return
        request = request_or_error
        try:
            await self._execute(request, connection)
        except HarnessError as e:
            await connection.send(ErrorReply(id=request.id, message=str(e)))
        except Exception as e:
            log.exception("request %s failed", request.type)
            message = f"internal error in {request.type}: {e!r}; see the daemon log"
            await connection.send(ErrorReply(id=request.id, message=message))

    async def _execute(self, request: Request, connection: _Connection) -> None:
        supervisor = self._supervisor
        match request:
            case ListRequest():
                await connection.send(AgentsReply(id=request.id, agents=supervisor.agents()))
            case StartRequest():
                agent = await supervisor.start_agent(
                    request.spec,
                    request.credentials,
                    fresh=request.fresh,
                    telemetry=request.telemetry,
                )
                await connection.send(AgentReply(id=request.id, agent=agent))
            case ResumeRequest():
                agent = await supervisor.resume_agent(
                    request.agent, request.credentials, telemetry=request.telemetry
                )
                await connection.send(AgentReply(id=request.id, agent=agent))
            case StopRequest():
                agent = await supervisor.stop_agent(request.agent, by=who(request.client))
                await connection.send(AgentReply(id=request.id, agent=agent))
            case StatusRequest():
                await connection.send(
                    AgentReply(id=request.id, agent=supervisor.agent(request.agent))
                )
            case RemoveRequest():
                supervisor.remove_agent(request.agent)
                await connection.send(OkReply(id=request.id))
            case SetAutoAcceptRequest():
                agent = await supervisor.set_auto_accept(request.agent, request.chosen)
                await connection.send(AgentReply(id=request.id, agent=agent))
            case SubscribeRequest():
                connection.subscribe(request.id, supervisor)
            case AnswerRequest():
                name, decided = await supervisor.answer(request)
                await connection.send(
                    AnsweredReply(
                        id=request.id,
                        agent=name,
                        checkpoint_id=decided.id,
                        checkpoint_type=decided.type,
                        approved=request.approve,
                    )
                )
            case ShutdownRequest():
                await connection.send(OkReply(id=request.id))
                log.info("shutdown requested by a client")
                self.request_shutdown()
            case _:
                assert_never(request)


class _Connection:
    """One client: sends replies, and pushes events once it subscribed."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer
        self._unsubscribe: list[Callable[[], None]] = []

    async def send(self, frame: BaseModel) -> None:
        self._writer.write(encode_frame(frame))
        await self._writer.drain()

    def subscribe(self, request_id: int, supervisor: Supervisor) -> None:
        """Send a snapshot, then an ``AgentEvent`` per change until the client leaves.

        The snapshot is taken and the listener added in one step of the event loop,
        so no change falls between them.
        """
        if self._unsubscribe:
            raise DaemonError("this connection is already subscribed")
        snapshot = AgentsReply(id=request_id, agents=supervisor.agents(), final=False)

        def push(info: AgentInfo, removed: bool) -> None:
            self._push(AgentEvent(id=request_id, agent=info, removed=removed))

        self._writer.write(encode_frame(snapshot))
        self._unsubscribe.append(supervisor.add_listener(push))

    def unsubscribe(self) -> None:
        while self._unsubscribe:
            self._unsubscribe.pop()()

    def _push(self, frame: BaseModel) -> None:
        """Queue an event without waiting; a subscriber that stopped reading is cut off."""
        transport = self._writer.transport
        if transport.is_closing():
            return
        self._writer.write(encode_frame(frame))
        if transport.get_write_buffer_size() > MAX_UNREAD_BYTES:
            log.warning("subscriber left %d bytes unread; dropping it", MAX_UNREAD_BYTES)
            transport.abort()


def _command_name(pid: int) -> str:
    """The process's name as the log may show it: escaped, since a process picks its own."""
    try:
        name = Path(f"/proc/{pid}/comm").read_text().rstrip("\n")
    except OSError:
        return "exited"
    return ascii(name)


def _parse(line: bytes) -> Request | ErrorReply:
    """The request on ``line``, or the error reply that explains why there is none."""
    try:
        data = json.loads(line)
    except RecursionError:
        return ErrorReply(id=None, message="malformed JSON: nested too deeply")
    except ValueError as e:  # JSONDecodeError, bad UTF-8, an integer of too many digits
        return ErrorReply(id=None, message=f"malformed JSON: {e}")
    raw_id = data.get("id") if isinstance(data, dict) else None
    request_id = raw_id if isinstance(raw_id, int) and raw_id >= 0 else None
    try:
        return RequestAdapter.validate_python(data)
    except ValidationError as e:
        return ErrorReply(id=request_id, message=_describe(e))
    except RecursionError:
        return ErrorReply(id=request_id, message="invalid request: nested too deeply")


def _describe(error: ValidationError) -> str:
    """One line for the first problem of an invalid request."""
    first = error.errors()[0]
    if first["type"] == "union_tag_invalid":
        ctx = first.get("ctx", {})
        return (
            f"unknown request type {ctx.get('tag')!r} (expected one of {ctx.get('expected_tags')})"
        )
    if first["type"] == "union_tag_not_found":
        return "request has no 'type'"
    where = ".".join(str(part) for part in first["loc"][1:]) or "(request)"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"invalid request: {where}: {first['msg']}{more}"

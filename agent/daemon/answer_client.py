"""Answering a checkpoint through the daemon, for a command that must act at once.

Why not :class:`agent.daemon.client.DaemonClient`: the time from ``harness approve``
typed to the agent acting is this command's start-up, and pydantic's first model
alone costs it 70–130 ms here (measured; its schema machinery loads then), the whole
protocol's schemas as much again. So this client is the standard library only: a
blocking socket, one ``answer`` request and its reply. The daemon, which has
everything loaded, validates the request against
:class:`common.schemas.protocol.AnswerRequest`, signs and writes the decision, and
replies with an :class:`~common.schemas.protocol.AnsweredReply`. Those models are the
messages' one definition; ``tests/daemon/test_answer_client.py`` checks that what is
written here is exactly what they accept and what they produce.
"""

from __future__ import annotations

import json
import socket
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from agent.daemon.address import checked_socket_path, not_running_message
from common.errors import DaemonError, ProtocolError
from common.paths import harness_home
from common.protocol_wire import MAX_FRAME_BYTES, PROTOCOL_VERSION

#: Long enough for a daemon busy starting agents; a person waits no longer than this.
TIMEOUT_S = 30.0
REQUEST_ID = 1


class Answer(NamedTuple):
    """What a person asks of the checkpoint an agent waits at."""

    agent: str
    approve: bool
    choice: str | None = None
    reason: str | None = None
    checkpoint_id: str | None = None
    not_after: datetime | None = None
    client: str = "cli"


class Answered(NamedTuple):
    """The daemon's word that the decision is written: the agent acts on it now."""

    agent: str
    checkpoint_id: str
    checkpoint_type: str
    approved: bool


def request_line(answer: Answer) -> bytes:
    """``answer`` as the daemon's ``answer`` request frame (one JSON line)."""
    fields: dict[str, Any] = {
        "type": "answer",
        "id": REQUEST_ID,
        **answer._asdict(),
        "not_after": answer.not_after.isoformat() if answer.not_after else None,
    }
    return json.dumps(fields).encode() + b"\n"


def send(answer: Answer, socket_path: Path | None = None) -> Answered:
    """Ask the daemon to decide as ``answer`` says; returns once the decision is written.

    Raises:
        DaemonError: the daemon is not running or refused the answer (its one-line
            reason: nothing waits, decided already, a choice that does not fit, ...).
        ProtocolError: the daemon speaks another protocol version or sent nonsense.
    """
    path = socket_path or checked_socket_path(harness_home())
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(TIMEOUT_S)
        try:
            connection.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError) as e:
            raise DaemonError(not_running_message(path)) from e
        lines = _Lines(connection)
        check_hello(lines.frame())
        connection.sendall(request_line(answer))
        return answered(lines.frame())


def check_hello(frame: dict[str, Any]) -> None:
    """Accept the daemon's greeting, or raise why this client cannot talk to it."""
    _raise_error(frame)
    if frame.get("type") != "hello":
        raise ProtocolError(f"the daemon did not greet with hello but with {frame.get('type')!r}")
    version = frame.get("protocol_version")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(
            f"the daemon (pid {frame.get('daemon_pid')}) speaks protocol {version}, "
            f"this client {PROTOCOL_VERSION}; restart it with `harness daemon stop` and start"
        )


def answered(frame: dict[str, Any]) -> Answered:
    """The daemon's reply to the answer request.

    Raises:
        DaemonError: the daemon's error reply (its message).
        ProtocolError: anything but an ``answered`` reply to this request.
    """
    _raise_error(frame)
    if frame.get("type") != "answered" or frame.get("id") != REQUEST_ID:
        raise ProtocolError(f"expected the answer to request {REQUEST_ID}, got {frame!r:.200}")
    agent, checkpoint_id, checkpoint_type, approved = (frame.get(name) for name in Answered._fields)
    if not (
        isinstance(agent, str)
        and isinstance(checkpoint_id, str)
        and isinstance(checkpoint_type, str)
        and isinstance(approved, bool)
    ):
        raise ProtocolError(f"unreadable answered reply from the daemon: {frame!r:.200}")
    return Answered(agent, checkpoint_id, checkpoint_type, approved)


def _raise_error(frame: dict[str, Any]) -> None:
    if frame.get("type") == "error":  # for example a peer of another uid, refused
        raise DaemonError(str(frame.get("message")))


class _Lines:
    """The frames of one connection, one newline-terminated JSON object each."""

    def __init__(self, connection: socket.socket) -> None:
        self._connection = connection
        self._buffer = b""

    def frame(self) -> dict[str, Any]:
        """The next frame, a JSON object.

        Raises:
            DaemonError: the daemon closed the connection or went silent.
            ProtocolError: the line is too long or not a JSON object.
        """
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_FRAME_BYTES:
                raise ProtocolError(f"a frame from the daemon is over {MAX_FRAME_BYTES} bytes")
            try:
                chunk = self._connection.recv(65536)
            except TimeoutError as e:
                raise DaemonError(f"the daemon did not answer within {TIMEOUT_S:g} s") from e
            except ConnectionError as e:
                raise DaemonError(f"lost the connection to the daemon ({e})") from e
            if not chunk:
                raise DaemonError("the daemon closed the connection")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            frame = json.loads(line)
        except ValueError as e:
            raise ProtocolError(f"unreadable frame from the daemon: {e}") from e
        if not isinstance(frame, dict):
            raise ProtocolError(f"unreadable frame from the daemon: {line[:200]!r}")
        return frame

"""The HTTP server: the Messages API endpoints over a playbook, on the stdlib.

One thread per connection (``ThreadingHTTPServer``); HTTP/1.1 with a
``Content-Length`` on every answer so the CLI can keep its connection alive.
The only state is the fault queue and the request counter, both for tests:
answers themselves come from the request alone.

With a latency, every ``/v1/messages`` answer waits that long before its first
byte, as a real model takes time to answer. The wait is in the request's own
thread, so concurrent requests (parallel sessions) each wait their own latency,
side by side. Injected error faults answer at once (an endpoint refuses before it
thinks); ``count_tokens`` is not an answer and never waits.
"""

from __future__ import annotations

import contextlib
import json
import logging
import math
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Protocol, get_args
from urllib.parse import urlsplit

from agent.model import wire
from agent.model.playbook import Playbook, Reply, choose_reply
from agent.model.recording import RequestRecorder

logger = logging.getLogger(__name__)

Fault = Literal["429", "500", "529", "slow"]
"""A failure injected into one ``/v1/messages`` request."""

FAULTS: tuple[Fault, ...] = get_args(Fault)

#: The serving loop's select timeout: long, since :meth:`PlaybookServer.stop` wakes it.
IDLE_POLL_S = 3600.0

#: Connections waiting to be accepted: room for many sessions connecting at the same moment.
LISTEN_BACKLOG = 128

#: How long the ``slow`` fault sleeps before answering normally.
SLOW_SECONDS = 2.0

_FAULT_ANSWERS: dict[str, tuple[HTTPStatus | int, wire.ErrorKind, str]] = {
    "429": (HTTPStatus.TOO_MANY_REQUESTS, "rate_limit_error", "Injected rate limit."),
    "500": (HTTPStatus.INTERNAL_SERVER_ERROR, "api_error", "Injected internal error."),
    "529": (529, "overloaded_error", "Injected overload."),
}


def parse_faults(text: str) -> list[Fault]:
    """Parse ``429,500,slow`` into a fault queue.

    Raises:
        ValueError: an item is not one of :data:`FAULTS`.
    """
    faults: list[Fault] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item not in FAULTS:
            raise ValueError(f"unknown fault {item!r} (known: {', '.join(FAULTS)})")
        faults.append(item)
    return faults


def valid_latency(seconds: float) -> float:
    """``seconds`` if it is a latency: a finite number ≥ 0.

    Raises:
        ValueError: it is not, in one line.
    """
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"latency {seconds!r} must be a finite number of seconds ≥ 0")
    return seconds


def parse_latency(text: str) -> float:
    """Parse ``--latency SECONDS``.

    Raises:
        ValueError: not a number, or not a latency (:func:`valid_latency`), in one line.
    """
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"latency {text!r} is not a number of seconds") from None
    return valid_latency(seconds)


class PlaybookServer:
    """A Messages API server answering from a playbook, served from a background thread.

    Usable as a context manager: ``with PlaybookServer(playbook) as server: server.url``.
    """

    def __init__(
        self,
        playbook: Playbook | Answers,
        host: str = "127.0.0.1",
        port: int = 0,
        faults: Sequence[str] = (),
        slow_seconds: float = SLOW_SECONDS,
        recorder: RequestRecorder | None = None,
        latency_s: float = 0.0,
    ) -> None:
        """Bind the socket now, so the port is known before :meth:`start`.

        ``recorder``, when given, gets every well-formed ``/v1/messages`` request
        (for benchmarks: what the client sends, part by part). ``latency_s`` is how
        long each answer waits before it starts (see the module's docstring).

        Raises:
            ValueError: a fault is not one of :data:`FAULTS`, or the latency is not
                a finite number of seconds ≥ 0.
            OSError: the address cannot be bound.
        """
        self.playbook = playbook
        self.slow_seconds = slow_seconds
        self.latency_s = valid_latency(latency_s)
        self.recorder = recorder
        self._faults: deque[Fault] = deque(parse_faults(",".join(faults)))
        self._lock = threading.Lock()
        self._served = 0
        self._thread: threading.Thread | None = None
        self._httpd = _HTTPServer((host, port), _Handler, self)

    @property
    def url(self) -> str:
        """The base URL, ``http://HOST:PORT``, for ``ANTHROPIC_BASE_URL``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def requests_served(self) -> int:
        """How many well-formed ``/v1/messages`` requests arrived (faulted ones included)."""
        with self._lock:
            return self._served

    def start(self) -> None:
        """Serve in a daemon thread until :meth:`stop`."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": IDLE_POLL_S},  # idle means idle: stop() wakes it
            name="playbook-server",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop serving and close the socket; connection threads are daemons.

        The serving loop sleeps in ``select`` until a connection comes, so after asking
        it to shut down, one throwaway connection wakes it.
        """
        if self._thread is not None:
            stopper = threading.Thread(target=self._httpd.shutdown, daemon=True)
            stopper.start()
            host, port = self._httpd.server_address[:2]
            with contextlib.suppress(OSError), socket.create_connection((str(host), port), 1):
                pass
            stopper.join(timeout=5)
            self._thread.join(timeout=5)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> PlaybookServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def next_fault(self) -> Fault | None:
        """Count one ``/v1/messages`` request and take the fault queued for it, if any."""
        with self._lock:
            self._served += 1
            return self._faults.popleft() if self._faults else None


class Answers(Protocol):
    """Anything else that answers requests: a recorded session (``harness replay``)."""

    def reply(self, request: dict[str, Any]) -> Reply:
        """The answer to one ``/v1/messages`` body."""
        ...


def _answer(playbook: Playbook | Answers, body: dict[str, Any]) -> tuple[bytes, str]:
    """The payload and content type answering one ``/v1/messages`` body."""
    if isinstance(playbook, Playbook):  # noqa: SIM108 - mypy narrows an if, not a ternary
        reply = choose_reply(playbook, body)
    else:
        reply = playbook.reply(body)
    model = str(body.get("model") or "playbook")
    input_tokens = wire.estimate_tokens(body)
    if body.get("stream"):
        events = wire.sse_events(reply, model, input_tokens)
        return wire.encode_sse(events), "text/event-stream"
    return json.dumps(wire.message_json(reply, model, input_tokens)).encode(), "application/json"


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog. socketserver's 5 refused (reset) or delayed (a SYN resent
    # after 1 s) connections when a few dozen parallel sessions connect at once.
    request_queue_size = LISTEN_BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        owner: PlaybookServer,
    ) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "playbook-model/1"
    timeout = 120  # an idle keep-alive connection frees its thread eventually
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("%s " + format, self.address_string(), *args)

    def do_GET(self) -> None:
        self._read_body()
        self._not_found()

    def do_POST(self) -> None:
        raw = self._read_body()
        path = urlsplit(self.path).path.rstrip("/")
        if path not in ("/v1/messages", "/v1/messages/count_tokens"):
            self._not_found()
            return
        try:
            body = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            self._send_error(HTTPStatus.BAD_REQUEST, "invalid_request_error", f"bad JSON: {e}")
            return
        if not isinstance(body, dict):
            self._send_error(
                HTTPStatus.BAD_REQUEST, "invalid_request_error", "body must be a JSON object"
            )
            return
        if path.endswith("count_tokens"):
            self._send_json(HTTPStatus.OK, {"input_tokens": wire.estimate_tokens(body)})
            return
        owner = self.server.owner
        if owner.recorder is not None:
            owner.recorder.record(len(raw), body)
        fault = owner.next_fault()
        if fault is not None and fault != "slow":
            status, kind, message = _FAULT_ANSWERS[fault]
            headers = {"retry-after": "0"} if fault == "429" else {}
            self._send_error(status, kind, message, headers)
            return
        if owner.latency_s:
            time.sleep(owner.latency_s)  # this request's thread only: others go on
        if fault == "slow":
            time.sleep(owner.slow_seconds)
        try:
            payload, content_type = _answer(owner.playbook, body)
        except Exception:
            # A bug here must reach the log and the CLI as an API error, not a dropped socket.
            logger.exception("answering %s failed", path)
            self._send_error(HTTPStatus.INTERNAL_SERVER_ERROR, "api_error", "playbook server bug")
            return
        self._send(HTTPStatus.OK, payload, content_type)

    def _read_body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            return self._read_chunked()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _read_chunked(self) -> bytes:
        data = bytearray()
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline().strip():  # trailers
                    pass
                return bytes(data)
            data += self.rfile.read(size)
            self.rfile.readline()

    def _not_found(self) -> None:
        path = urlsplit(self.path).path
        self._send_error(
            HTTPStatus.NOT_FOUND, "not_found_error", f"{self.command} {path} is not served here"
        )

    def _send_error(
        self,
        status: HTTPStatus | int,
        kind: wire.ErrorKind,
        message: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_json(status, wire.error_body(kind, message), headers)

    def _send_json(
        self,
        status: HTTPStatus | int,
        data: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", headers)

    def _send(
        self,
        status: HTTPStatus | int,
        payload: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

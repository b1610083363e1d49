"""A model host for the endpoint tests: known usage in every answer, and files on other paths.

Like the host the red team found, it serves anything asked (``GET /rt/x.sh`` gets a
script), so a test can tell a refused request from one the host answered. Every
``/v1/messages`` answer is a stream whose ``usage`` is :data:`USAGE`; count_tokens
answers ``{"input_tokens": 7}``.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

MODEL = "claude-sonnet-4-5-20250929"
USAGE = {"input_tokens": 1000, "cache_read_input_tokens": 200, "cache_creation_input_tokens": 300}
OUTPUT_TOKENS = 50
SCRIPT = b"#!/bin/sh\necho the host served a file\n"


class MeteredHost:
    """``with MeteredHost() as host: host.url``; ``host.seen`` lists (method, path)."""

    def __init__(self, *, pause_s: float = 0.0) -> None:
        self.pause_s = pause_s
        self.seen: list[tuple[str, str]] = []
        self.finished = threading.Event()
        """Set when a stream was written to its end."""
        self._httpd = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> MeteredHost:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def stream_events() -> list[dict[str, Any]]:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": MODEL}
    return [
        {"type": "message_start", "message": {**message, "usage": {**USAGE, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": OUTPUT_TOKENS},
        },
        {"type": "message_stop"},
    ]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: Any, owner: MeteredHost) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.owner.seen.append(("GET", self.path))
        self._send(200, "text/plain", SCRIPT)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        owner = self.server.owner
        owner.seen.append(("POST", self.path))
        path = self.path.partition("?")[0]
        if path == "/v1/messages/count_tokens":
            self._send(200, "application/json", b'{"input_tokens": 7}')
            return
        if path != "/v1/messages":
            self._send(200, "text/plain", SCRIPT)
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in stream_events():
            data = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            time.sleep(owner.pause_s)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        owner.finished.set()

    def _send(self, status: int, content_type: str, payload: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class UnixHTTPConnection(http.client.HTTPConnection):
    """HTTP/1.1 over the bridge's Unix socket: what the relay inside the sandbox forwards."""

    def __init__(self, path: Path) -> None:
        super().__init__("127.0.0.1", timeout=20)
        self.unix_path = path

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(20)
        sock.connect(str(self.unix_path))
        self.sock = sock


MESSAGE = json.dumps(
    {
        "model": MODEL,
        "max_tokens": 64,
        "stream": True,
        "messages": [{"role": "user", "content": "hi"}],
    }
).encode()

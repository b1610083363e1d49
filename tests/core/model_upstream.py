"""A stand-in for a real model endpoint: records what it was sent, answers like the Messages API.

It plays "the real endpoint" behind the agent's model proxy: it keeps every
request's headers (to see which key arrived), streams SSE answers event by event
(chunked, with an optional pause between events), and can refuse everything with
401. When given a Bash command, the first turn of each session runs it (the
model's Bash tool), the next ends the turn.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from agent.model import wire
from agent.model.playbook import Reply, TextBlock, ToolUseBlock


@dataclass
class Seen:
    """One request as it arrived."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)


PROPOSE = "mcp__harness__propose_issues"
"""The initializer's report tool: a session without Bash calls it to move the run on."""


class Upstream:
    """``with Upstream() as up: up.url``; ``up.seen`` lists the requests."""

    def __init__(
        self, *, refuse: int | None = None, bash: str | None = None, pause_s: float = 0.0
    ) -> None:
        self.refuse = refuse
        self.bash = bash
        self.pause_s = pause_s
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _Handler, self)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Upstream:
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

    def reply_to(self, body: dict[str, Any]) -> Reply:
        """Bash first (if asked and the session has Bash and has not run it), then the end
        of the turn. A session without Bash (the initializer) proposes one issue, so that
        the run goes on to a coding session, which has Bash."""
        messages = body.get("messages") or []
        last = messages[-1]["content"] if messages else ""
        answered = isinstance(last, list) and any(
            isinstance(block, dict) and block.get("type") == "tool_result" for block in last
        )
        offered = {tool.get("name") for tool in body.get("tools") or []}
        if self.bash and "Bash" in offered and not answered:
            use = ToolUseBlock(id="toolu_probe", name="Bash", input={"command": self.bash})
            return Reply(content=[use])
        if PROPOSE in offered and not answered:
            issue = {"title": "Greet", "summary": "Add a greeting."}
            propose = ToolUseBlock(id="toolu_propose", name=PROPOSE, input={"issues": [issue]})
            return Reply(content=[propose])
        return Reply(content=[TextBlock(text="done")])


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: Any, owner: Upstream) -> None:
        self.owner = owner
        super().__init__(address, handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._record(b"")
        self._json(404, wire.error_body("not_found_error", "not here"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        body = self._record(raw)
        owner = self.server.owner
        if owner.refuse is not None:
            kind = "authentication_error" if owner.refuse == 401 else "permission_error"
            error = {"type": "error", "error": {"type": kind, "message": "invalid x-api-key"}}
            self._json(owner.refuse, error)
            return
        reply = owner.reply_to(body)
        model = str(body.get("model") or "m")
        if not body.get("stream"):
            self._json(200, wire.message_json(reply, model, 1))
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in wire.sse_events(reply, model, 1):
            data = wire.encode_sse([event])
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()
            time.sleep(owner.pause_s)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _record(self, raw: bytes) -> dict[str, Any]:
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        seen = Seen(self.command, self.path, dict(self.headers.items()), body)
        with self.server.owner.lock:
            self.server.owner.seen.append(seen)
        return body if isinstance(body, dict) else {}

    def _json(self, status: int, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

"""Local stand-ins for the research services: real HTTP servers on 127.0.0.1 (port 0,
a thread each) speaking SearxNG's and Context7's APIs, for the clients' tests and the
demo's end-to-end test."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Reply = tuple[int, dict[str, str], bytes]
NONCE = "i19-research-nonce"


class StandIn:
    """A local HTTP service: each GET is recorded and answered by ``reply``."""

    def __init__(self, reply: Callable[[str, dict[str, str]], Reply]) -> None:
        self.requests: list[tuple[str, dict[str, str]]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                headers = {k.lower(): v for k, v in self.headers.items()}
                outer.requests.append((self.path, headers))
                status, extra, body = reply(self.path, headers)
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def searxng(path: str, headers: dict[str, str]) -> Reply:
    """SearxNG's ``/search?q=…&format=json``."""
    query = parse_qs(urlsplit(path).query)
    results = [
        {"url": f"https://docs.example.org/{NONCE}/{n}", "title": f"Result {n}", "content": "x"}
        for n in range(12)
    ]
    results.insert(1, {"url": "javascript:alert(1)", "title": "bad", "content": ""})
    body = {"query": query["q"][0], "number_of_results": 12, "results": results}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


def context7(path: str, headers: dict[str, str]) -> Reply:
    """Context7's ``/api/v2/libs/search`` and ``/api/v2/context``, behind a Bearer key."""
    if headers.get("authorization") != f"Bearer {NONCE}-key":
        return 401, {}, b'{"error": "unauthorized"}'
    parts = urlsplit(path)
    query = parse_qs(parts.query)
    if parts.path == "/api/v2/libs/search":
        libs = [{"id": f"/acme/{query['libraryName'][0]}", "name": "Acme", "trustScore": 9}]
        return 200, {"Content-Type": "application/json"}, json.dumps(libs).encode()
    if parts.path == "/api/v2/context":
        text = f"docs of {query['libraryId'][0]} about {query['query'][0]}\n" + "y" * 20_000
        return 200, {"Content-Type": "text/plain"}, text.encode()
    return 404, {}, b""

"""A local GitLab for tests and the demo: REST v4 under ``/api/v4`` and git smart HTTP.

Standard library only (``ThreadingHTTPServer``). API requests authenticate with the
``PRIVATE-TOKEN`` header (or ``Authorization: Bearer``), are paginated with GitLab's
headers (``X-Total``, ``X-Total-Pages``, ``X-Page``, ``X-Per-Page``, ``X-Next-Page``,
``X-Prev-Page`` and ``Link``) and may be faulted by a :class:`FaultPlan`; git
requests authenticate with HTTP Basic and are never faulted.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from agent.gitlab_local import api, githttp
from agent.gitlab_local.faults import FaultPlan
from agent.gitlab_local.store import MAINTAINER, ApiError, Project, Store, Token

API_PREFIX = "/api/v4/"
DEFAULT_PER_PAGE, MAX_PER_PAGE = 20, 100


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], gitlab: LocalGitLab) -> None:
        super().__init__(address, _Handler)
        self.gitlab = gitlab


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes
    server: _Server

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def log_message(self, format: str, *args: Any) -> None:
        log = self.server.gitlab.log
        if log is not None:
            log(f"{self.address_string()} {format % args}")

    # --- dispatch -----------------------------------------------------------------------

    def _handle(self, method: str) -> None:
        gitlab = self.server.gitlab
        parts = urlsplit(self.path)
        body = self._read_body()
        if parts.path.startswith(API_PREFIX):
            self._api(method, parts.path[len(API_PREFIX) :], parts.query, body)
            return
        token = githttp.basic_token(gitlab.store, self.headers.get("Authorization"))
        answer = githttp.serve(
            gitlab.store,
            token,
            method,
            unquote(parts.path),
            parts.query,
            body,
            self.headers.get("Content-Type"),
            {name.lower(): value for name, value in self.headers.items()},
        )
        self._send(answer.status, answer.body, answer.headers)

    def _api(self, method: str, path: str, query: str, body: bytes) -> None:
        plan = self.server.gitlab.faults
        fault = plan.choose(method, "/" + path)
        if fault == "429":
            headers = [("Retry-After", str(plan.retry_after)), ("Content-Type", "text/plain")]
            self._send(429, b"Retry later\n", headers)
            return
        if fault == "500":
            self._json(500, {"message": "500 Internal Server Error"})
            return
        if fault in ("timeout", "late"):
            plan.released.wait(plan.hang)
            self.close_connection = True
            if fault == "timeout":
                return
        status, payload, headers = self._answer(method, path, query, body)
        if fault in ("drop", "late"):  # carried out; no answer reaches the client
            self.close_connection = True
            return
        self._json(status, payload, headers)

    def _answer(
        self, method: str, path: str, query: str, body: bytes
    ) -> tuple[int, object, list[tuple[str, str]]]:
        store = self.server.gitlab.store
        segments = [unquote(segment) for segment in path.strip("/").split("/")]
        try:
            token = self._api_token(store, method, segments)
            endpoint, args = api.route(method, segments)
            params = {**_query_params(query), **_body_params(body, self.headers)}
            status, payload = endpoint(api.Call(store, token, args, params))
        except ApiError as e:
            return e.status, e.body, list(e.headers.items())
        except (ValueError, KeyError) as e:
            return 400, {"error": f"400 Bad request - {e}"}, []
        if isinstance(payload, list):
            return self._page(payload, path, query)
        return status, payload, []

    def _api_token(self, store: Store, method: str, segments: list[str]) -> Token:
        value = self.headers.get("PRIVATE-TOKEN")
        bearer = self.headers.get("Authorization", "")
        if value is None and bearer.startswith("Bearer "):
            value = bearer[7:]
        token = store.token(value)
        if token is None:
            raise ApiError(401, {"message": "401 Unauthorized"})
        needed = api.required_scopes(method, segments)
        if not token.allows(*needed):
            raise ApiError(
                403,
                {
                    "error": "insufficient_scope",
                    "error_description": "The request requires higher privileges than "
                    "provided by the access token.",
                    "scope": " ".join(needed[:2]),
                },
            )
        return token

    def _page(
        self, items: list[Any], path: str, query: str
    ) -> tuple[int, object, list[tuple[str, str]]]:
        params = parse_qs(query, keep_blank_values=True)
        per_page = _positive(params.get("per_page"), DEFAULT_PER_PAGE, MAX_PER_PAGE)
        page = _positive(params.get("page"), 1, None)
        total_pages = max(1, math.ceil(len(items) / per_page))
        base = f"http://{self.headers.get('Host', 'localhost')}{API_PREFIX}{path}"

        def link(number: int) -> str:
            return f"{base}?{urlencode({**params, 'page': [str(number)]}, doseq=True)}"

        relations = [(page - 1, "prev"), (page + 1, "next"), (1, "first"), (total_pages, "last")]
        links = [f'<{link(n)}>; rel="{rel}"' for n, rel in relations if 1 <= n <= total_pages]
        headers = [
            ("X-Page", str(page)),
            ("X-Per-Page", str(per_page)),
            ("X-Total", str(len(items))),
            ("X-Total-Pages", str(total_pages)),
            ("X-Next-Page", str(page + 1) if page < total_pages else ""),
            ("X-Prev-Page", str(page - 1) if page > 1 else ""),
            ("Link", ", ".join(links)),
        ]
        return 200, items[(page - 1) * per_page : page * per_page], headers

    # --- I/O ----------------------------------------------------------------------------

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _json(
        self, status: int, payload: object, headers: list[tuple[str, str]] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self._send(status, data, [("Content-Type", "application/json"), *(headers or [])])

    def _send(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _positive(values: list[str] | None, default: int, ceiling: int | None) -> int:
    try:
        number = int(values[0]) if values else default
    except ValueError:
        number = default
    number = max(1, number)
    return min(number, ceiling) if ceiling else number


def _query_params(query: str) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for name, values in parse_qs(query, keep_blank_values=True).items():
        params[name] = values if name.endswith("[]") or len(values) > 1 else values[0]
    return params


def _body_params(body: bytes, headers: Any) -> dict[str, Any]:
    if not body:
        return {}
    if "json" in (headers.get("Content-Type") or ""):
        parsed = json.loads(body)
        if not isinstance(parsed, dict):
            raise ValueError("the body is not a JSON object")
        return parsed
    return _query_params(body.decode())


class LocalGitLab:
    """``with LocalGitLab(root) as gitlab:`` serves on ``gitlab.url`` until the block ends.

    Repositories live under ``root``; state is in memory (``gitlab.store``).
    """

    def __init__(
        self,
        root: Path,
        *,
        faults: FaultPlan | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.store = Store(root)
        self.faults = faults or FaultPlan()
        self.log = log
        self._address = (host, port)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://HOST:PORT``: the web and git address (``/group/name.git``)."""
        return self.store.external_url

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/v4"

    def start(self) -> None:
        self._server = _Server(self._address, self)
        self.store.external_url = f"http://{self._address[0]}:{self._server.server_port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="local-gitlab", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.faults.released.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> LocalGitLab:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def add_project(
        self, path: str, username: str = "harness", scopes: tuple[str, ...] = ("api",)
    ) -> tuple[Project, Token]:
        """A project with one Maintainer, and a personal access token for that user."""
        user = self.store.add_user(username)
        token = self.store.add_token(user, scopes)
        return self.store.add_project(path, {user: MAINTAINER}), token

"""Two sessions at once through the real proxy and the embedded model process: each
session's requests, which come in by its window's own entrance, are traced as that
session's, numbered from 1 within it, while the other's run at the same moment."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from agent.core.endpoint.endpoint_meter import EndpointMeter, EndpointSpend
from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.core.session.session import EntranceOpener, SessionConfig, endpoint_window
from agent.core.session.tools import SessionReports
from agent.core.session.trace_session import traced_session
from agent.core.trace import trace
from agent.model.launcher import LocalModel
from agent.model.playbook import DEMO_PLAYBOOK
from common.schemas.trace import ModelRequest, SessionStart
from tests.core.metered_upstream import UnixHTTPConnection

LATENCY_S = 0.5
"""Long enough that the requests of both sessions are in flight at the same time."""
PER_SESSION = 3


def message(prompt: str) -> bytes:
    """A streamed request; its size tells in the trace which session sent it."""
    return json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "stream": True,
            "messages": [{"role": "user", "content": prompt}],
        }
    ).encode()


def ask(path: Path, body: bytes) -> int:
    """One request on the Unix socket at ``path``; the answer's status."""
    connection = UnixHTTPConnection(path)
    try:
        connection.request(
            "POST",
            "/v1/messages?beta=true",
            body=body,
            headers={"x-api-key": "dummy", "content-type": "application/json"},
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


@contextlib.contextmanager
def short_folder() -> Iterator[Path]:
    """A folder with a short path (a Unix socket's path is at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="h17trc-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def test_two_sessions_at_once_each_trace_only_their_own_requests(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    meter = EndpointMeter(priced=False)
    bodies = {"coding issue #1": message("one " * 10), "coding issue #2": message("two " * 300)}
    with short_folder() as folder, trace.tracing(path):
        async with LocalModel(DEMO_PLAYBOOK, latency_s=LATENCY_S) as url:
            proxy = ModelProxy(Upstream(url, "none"), None, meter)

            def opener(label: str) -> EntranceOpener:
                @contextlib.asynccontextmanager
                async def serve(window: EndpointSpend, _work_tree: Path) -> AsyncIterator[Path]:
                    name = "one.sock" if label.endswith("#1") else "two.sock"
                    async with proxy.entrance(window, folder / name) as socket_path:
                        yield socket_path  # stands for the CLI that reaches it

                return serve

            async def session(label: str) -> list[int]:
                config = SessionConfig(
                    project_dir=tmp_path,
                    model=None,
                    meter=meter,
                    entrance=opener(label),
                )
                reports = SessionReports()
                async with (
                    traced_session(label, "system", "prompt", tmp_path, None, reports) as traced,
                    endpoint_window(config, label, traced.session) as (_, own),
                ):
                    assert own.cli_path is not None
                    return [  # one after another, as a CLI asks: the two sessions alternate
                        await asyncio.to_thread(ask, own.cli_path, bodies[label])
                        for _ in range(PER_SESSION)
                    ]

            async with proxy:
                statuses = await asyncio.gather(
                    session("coding issue #1"), session("coding issue #2")
                )
    assert list(statuses) == [[200] * PER_SESSION] * 2
    events = trace.read_trace(path)
    number = {e.label: e.session for e in events if isinstance(e, SessionStart)}
    sizes = {number[label]: len(body) for label, body in bodies.items()}
    requests = [e for e in events if isinstance(e, ModelRequest)]
    assert len(requests) == 2 * PER_SESSION
    for session_number in (1, 2):
        mine = [r for r in requests if r.session == session_number]
        assert [r.index for r in mine] == list(range(1, PER_SESSION + 1))
        assert {r.request_bytes for r in mine} == {sizes[session_number]}
    order = [r.session or 0 for r in requests]
    assert order != sorted(order)  # the two sessions' requests interleave in the trace


async def test_a_proxy_without_windows_traces_the_one_session_running(tmp_path: Path) -> None:
    """The replay's proxy has no meter: one session runs, and its requests are its own."""
    path = tmp_path / "trace.jsonl"
    body = message("replayed " * 5)
    with trace.tracing(path) as tracer:
        async with (
            LocalModel(DEMO_PLAYBOOK) as url,
            ModelProxy(Upstream(url, "none")) as proxy_url,
        ):
            host, port = proxy_url.removeprefix("http://").rsplit(":", 1)
            before = await asyncio.to_thread(_ask_tcp, host, int(port), body)
            session = tracer.start_session()
            during = [await asyncio.to_thread(_ask_tcp, host, int(port), body) for _ in range(2)]
            tracer.end_session(session)
    assert [before, *during] == [200, 200, 200]
    traced = [(e.session, e.index) for e in trace.read_trace(path) if isinstance(e, ModelRequest)]
    assert traced == [(None, 1), (session.number, 1), (session.number, 2)]


def _ask_tcp(host: str, port: int, body: bytes) -> int:
    connection = http.client.HTTPConnection(host, port, timeout=20)
    try:
        connection.request(
            "POST", "/v1/messages", body=body, headers={"content-type": "application/json"}
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()

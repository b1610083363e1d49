"""Two sessions at once through the real proxy and the embedded model process.

Each session's window has an entrance of its own (a Unix socket the proxy serves, which
only that session's sandbox would bind): concurrent streamed answers on both are each
charged to their own window, the shared entrance leads to neither, and once one window
has closed its late requests are refused while the other goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import io
import json
import select
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.core.endpoint.endpoint_meter import EndpointMeter, EndpointSpend
from agent.core.endpoint.endpoint_usage import Usage, read_usage
from agent.core.endpoint.model_proxy import ENTRANCE_MAX_OPEN, ModelProxy, Upstream
from agent.core.endpoint.pricing import cost_usd
from agent.core.log import AgentLog
from agent.model.launcher import LocalModel
from agent.model.playbook import DEMO_PLAYBOOK

from .metered_upstream import UnixHTTPConnection

LATENCY_S = 1.0
"""Long enough that every request of both windows is in flight at the same time."""
PER_WINDOW = 3


@dataclass
class Answer:
    status: int
    content_type: str
    body: bytes

    @property
    def usage(self) -> Usage:
        return read_usage(self.body, self.content_type)


def message(prompt: str) -> bytes:
    """A streamed request; the prompt's length sets its input tokens (the model estimates)."""
    return json.dumps(
        {
            "model": "claude-sonnet-4-5",
            "max_tokens": 64,
            "stream": True,
            "messages": [{"role": "user", "content": prompt}],
        }
    ).encode()


FIRST = message("first session " * 10)
SECOND = message("second session " * 200)


def ask(connection: http.client.HTTPConnection, body: bytes) -> Answer:
    """One request on ``connection`` (kept open for the next)."""
    connection.request(
        "POST",
        "/v1/messages?beta=true",
        body=body,
        headers={"x-api-key": "dummy", "content-type": "application/json"},
    )
    response = connection.getresponse()
    return Answer(response.status, response.getheader("content-type") or "", response.read())


def ask_once(path: Path, body: bytes) -> Answer:
    connection = UnixHTTPConnection(path)
    try:
        return ask(connection, body)
    finally:
        connection.close()


def ask_shared(url: str, body: bytes) -> Answer:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=20)
    try:
        return ask(connection, body)
    finally:
        connection.close()


async def most_in_flight(windows: tuple[EndpointSpend, ...], seen: list[int]) -> None:
    """Record, per window, the most requests admitted and not yet charged at one moment."""
    while True:
        for index, window in enumerate(windows):
            seen[index] = max(seen[index], window.in_flight)
        await asyncio.sleep(0.01)


def charged(answers: list[Answer]) -> tuple[int, int, float]:
    """Input tokens, output tokens and cost the client saw in ``answers``' own usage."""
    usages = [answer.usage for answer in answers]
    return (
        sum(u.billed_input for u in usages),
        sum(u.output_tokens for u in usages),
        round(sum(cost_usd(u, u.model or "claude-sonnet-4-5") for u in usages), 6),
    )


@contextlib.asynccontextmanager
async def short_folder() -> AsyncIterator[Path]:
    """A folder with a short path (a Unix socket's path is at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="h17win-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def test_two_sessions_at_once_are_each_charged_only_their_own_streams() -> None:
    counted: list[str] = []
    meter = EndpointMeter(priced=True, on_refusal=counted.append)
    seen = [0, 0]
    async with short_folder() as folder, LocalModel(DEMO_PLAYBOOK, latency_s=LATENCY_S) as url:
        proxy = ModelProxy(Upstream(url, "none"), None, meter)
        async with proxy as shared_url:
            with meter.window("session coding #2", own_entrance=True) as second:
                async with proxy.entrance(second, folder / "two.sock") as two:
                    kept = UnixHTTPConnection(folder / "one.sock")  # connects at its first request
                    with meter.window("session coding #1", own_entrance=True) as first:
                        async with proxy.entrance(first, folder / "one.sock") as one:
                            assert one.stat().st_mode & 0o777 == 0o600
                            watch = asyncio.create_task(most_in_flight((first, second), seen))
                            answers = await asyncio.gather(
                                asyncio.to_thread(ask, kept, FIRST),
                                *(asyncio.to_thread(ask_once, one, FIRST) for _ in range(2)),
                                *(asyncio.to_thread(ask_once, two, SECOND) for _ in range(3)),
                                asyncio.to_thread(ask_shared, shared_url, FIRST),
                            )
                            watch.cancel()
                    # The first session has ended; the second goes on.
                    late = await asyncio.to_thread(ask, kept, FIRST)
                    kept.close()
                    with pytest.raises(OSError):
                        await asyncio.to_thread(ask_once, one, FIRST)
                    answers.append(await asyncio.to_thread(ask_once, two, SECOND))
            assert not two.exists()
    firsts, seconds, shared = answers[:3], [*answers[3:6], answers[7]], answers[6]
    assert [a.status for a in firsts + seconds] == [200] * 7
    assert all(a.content_type.startswith("text/event-stream") for a in firsts + seconds)
    assert seen == [PER_WINDOW, PER_WINDOW]  # every stream of both windows at once
    assert (first.requests, second.requests) == (PER_WINDOW, PER_WINDOW + 1)
    first_in, first_out, first_cost = charged(firsts)
    second_in, second_out, second_cost = charged(seconds)
    assert (first.input_tokens, first.output_tokens) == (first_in, first_out)
    assert (second.input_tokens, second.output_tokens) == (second_in, second_out)
    assert second_in > 10 * first_in > 0  # a request charged to the other window would show
    assert first.cost_usd == pytest.approx(first_cost) and first_cost > 0
    assert second.cost_usd == pytest.approx(second_cost)
    assert shared.status == 403 and b"no session of this agent is running" in shared.body
    assert late.status == 403 and b"session coding #1 has ended" in late.body
    assert meter.refused == 2 and len(counted) == 2
    assert meter.take_last("session coding #1") is first
    assert meter.take_last("session coding #2") is second


async def test_a_sessions_own_entrance_carries_a_bounded_number_of_connections() -> None:
    """A program of the session holding connections open gets no more than the entrance's
    bound (each would cost the agent descriptors); a request still goes through once they
    close, and the refusal is said once."""
    said = io.StringIO()
    meter = EndpointMeter(priced=False)
    async with short_folder() as folder, LocalModel(DEMO_PLAYBOOK) as url:
        proxy = ModelProxy(Upstream(url, "none"), AgentLog(said), meter)
        async with proxy:
            with meter.window("session coding #1", own_entrance=True) as window:
                async with proxy.entrance(window, folder / "one.sock") as path:
                    held = [UnixHTTPConnection(path) for _ in range(ENTRANCE_MAX_OPEN + 8)]
                    for connection in held:
                        connection.connect()
                    await asyncio.sleep(0.3)  # the proxy has taken each one in
                    turned_away = [c for c in held if closed_by_peer(c)]
                    for connection in held:
                        connection.close()
                    await asyncio.sleep(0.1)
                    answer = await asyncio.to_thread(ask_once, path, FIRST)
    assert len(turned_away) == 8
    assert answer.status == 200
    assert said.getvalue().count("refused a connection") == 1
    assert f"{ENTRANCE_MAX_OPEN} are open already" in said.getvalue()


def closed_by_peer(connection: UnixHTTPConnection) -> bool:
    """Whether the other end has closed ``connection`` (a read would return nothing)."""
    assert connection.sock is not None
    readable, _, _ = select.select([connection.sock], [], [], 0.05)
    return bool(readable) and connection.sock.recv(1, socket.MSG_PEEK) == b""

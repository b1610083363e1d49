"""The model endpoint as the sandbox reaches it: the real bridge and proxy, real HTTP.

The requests go where the sandbox's relay sends them: into the bridge's Unix socket,
on to the agent's model proxy, on to a model host that serves anything asked. Only
the Messages API passes, only while a session's window is open, and every answer is
charged to that window.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import shutil
import socket
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agent.core.endpoint.endpoint_meter import EndpointMeter
from agent.core.endpoint.endpoint_usage import Usage
from agent.core.endpoint.model_probe import probe_endpoint
from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.core.endpoint.pricing import cost_usd
from agent.core.log import AgentLog
from agent.model import PlaybookServer, load_playbook
from agent.model.playbook import DEMO_PLAYBOOK
from agent.process.model_access import metered_probe
from agent.sandbox.bridge import UnixBridge
from common.errors import ModelEndpointError

from .metered_upstream import (
    MESSAGE,
    MODEL,
    OUTPUT_TOKENS,
    SCRIPT,
    USAGE,
    MeteredHost,
    UnixHTTPConnection,
)
from .model_upstream import Upstream as FakeEndpoint

Answer = tuple[int, dict[str, str], bytes]
CHARGED = cost_usd(
    Usage(
        input_tokens=USAGE["input_tokens"],
        output_tokens=OUTPUT_TOKENS,
        cache_read_tokens=USAGE["cache_read_input_tokens"],
        cache_creation_tokens=USAGE["cache_creation_input_tokens"],
        found=True,
    ),
    MODEL,
)


@dataclass
class Endpoint:
    socket: Path
    meter: EndpointMeter
    lines: list[str] = field(default_factory=list)
    counted: list[str] = field(default_factory=list)

    async def ask(
        self, *requests: tuple[str, str, bytes | None], headers: dict[str, str] | None = None
    ) -> list[Answer]:
        """Send ``requests`` one after the other on ONE keep-alive connection."""
        return await asyncio.to_thread(self._ask, list(requests), headers or {})

    def _ask(
        self, requests: list[tuple[str, str, bytes | None]], headers: dict[str, str]
    ) -> list[Answer]:
        connection = UnixHTTPConnection(self.socket)
        answers = []
        try:
            for method, target, body in requests:
                sent = {"x-api-key": "dummy", "content-type": "application/json", **headers}
                connection.request(method, target, body=body, headers=sent)
                response = connection.getresponse()
                answers.append((response.status, dict(response.getheaders()), response.read()))
        finally:
            connection.close()
        return answers


@contextlib.asynccontextmanager
async def endpoint(upstream_url: str, *, priced: bool = True) -> AsyncIterator[Endpoint]:
    folder = Path(tempfile.mkdtemp(prefix="h14gate-"))
    lines: list[str] = []
    counted: list[str] = []
    meter = EndpointMeter(priced=priced, log=lines.append, on_refusal=counted.append)
    try:
        async with ModelProxy(Upstream(upstream_url, "api_key", "sk-real"), None, meter) as url:
            port = int(url.rsplit(":", 1)[1])
            async with UnixBridge(folder / "model.sock", "127.0.0.1", port):
                yield Endpoint(folder / "model.sock", meter, lines, counted)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def error_of(answer: Answer) -> dict[str, str]:
    _status, headers, body = answer
    assert headers["content-type"] == "application/json"
    data = json.loads(body)
    assert data["type"] == "error"
    return dict(data["error"])


async def test_other_paths_are_refused_and_never_reach_the_model_host() -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1"):
                answers = await gate.ask(
                    ("GET", "/rt/x.sh", None),
                    ("POST", "/v1/complete", b"{}"),
                    ("POST", "/v1/messages/../../rt/x.sh", b"{}"),
                    ("GET", "/v1/messages", None),
                    ("POST", "/v1/messages?beta=true", MESSAGE),  # same connection: still framed
                )
    refused, allowed = answers[:4], answers[4]
    assert [a[0] for a in refused] == [404, 404, 404, 405]
    assert all(SCRIPT not in a[2] for a in refused)
    assert error_of(refused[0])["type"] == "not_found_error"
    assert "GET /rt/x.sh refused" in error_of(refused[0])["message"]
    assert allowed[0] == 200
    assert host.seen == [("POST", "/v1/messages?beta=true")]
    assert gate.meter.refused == 4 and len(gate.counted) == 4
    assert any("[endpoint]" in line and "/rt/x.sh" in line for line in gate.lines)


async def test_a_message_in_a_session_is_charged_to_it_with_its_tokens_and_cost() -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1") as spent:
                answers = await gate.ask(
                    ("POST", "/v1/messages?beta=true", MESSAGE),
                    ("POST", "/v1/messages/count_tokens?beta=true", MESSAGE),
                    ("POST", "/v1/messages", MESSAGE),
                    headers={"accept-encoding": "br, zstd"},  # would hide the usage: ignored
                )
    assert [a[0] for a in answers] == [200, 200, 200]
    assert b'"output_tokens": 50' in answers[0][2]
    assert json.loads(answers[1][2]) == {"input_tokens": 7}
    assert spent.requests == 3
    assert spent.input_tokens == 2 * (1000 + 200 + 300)
    assert spent.cache_read_tokens == 2 * 200
    assert spent.cache_creation_tokens == 2 * 300
    assert spent.output_tokens == 2 * OUTPUT_TOKENS
    assert spent.cost_usd == pytest.approx(2 * CHARGED) and CHARGED > 0
    assert spent.unreadable == 0
    assert gate.meter.take_last("session coding-1") is spent


async def test_no_session_running_means_the_endpoint_is_closed() -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1") as spent:
                pass
            answers = await gate.ask(
                ("POST", "/v1/messages?beta=true", MESSAGE), ("GET", "/rt/x.sh", None)
            )
    assert answers[0][0] == 403
    assert error_of(answers[0])["type"] == "permission_error"
    assert "no session of this agent is running" in error_of(answers[0])["message"]
    assert answers[1][0] == 404
    assert host.seen == []
    assert spent.requests == 0
    assert gate.meter.refused == 2


async def test_a_client_that_leaves_mid_answer_is_charged_the_whole_answer() -> None:
    with MeteredHost(pause_s=0.2) as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1") as spent:
                await asyncio.to_thread(_leave_after_the_head, gate.socket)
            assert spent.in_flight == 1  # the session ended; its request is still answered
            await gate.meter.settle(spent, 10)
    assert host.finished.is_set()
    assert (spent.requests, spent.in_flight) == (1, 0)
    assert spent.output_tokens == OUTPUT_TOKENS
    assert spent.cost_usd == pytest.approx(CHARGED)


def _leave_after_the_head(path: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        head = f"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: {len(MESSAGE)}\r\n\r\n"
        sock.sendall(head.encode() + MESSAGE)
        assert sock.recv(64).startswith(b"HTTP/1.1 200")


async def test_a_chunked_request_and_the_next_one_on_its_connection_are_both_framed() -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1") as spent:
                raw = await asyncio.to_thread(_chunked_then_refused, gate.socket)
    assert raw.count(b"HTTP/1.1 200") == 1 and raw.count(b"HTTP/1.1 404") == 1
    assert spent.requests == 1 and host.seen == [("POST", "/v1/messages")]


def _chunked_then_refused(path: Path) -> bytes:
    half = len(MESSAGE) // 2
    chunks = b"%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n" % (
        half,
        MESSAGE[:half],
        len(MESSAGE) - half,
        MESSAGE[half:],
    )
    first = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n" + chunks
    second = b"GET /rt/x.sh HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        sock.sendall(first + second)
        received = b""
        while data := sock.recv(65536):
            received += data
        return received


async def test_an_oversized_body_is_refused_without_reading_it() -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1"):
                raw = await asyncio.to_thread(_announce_a_huge_body, gate.socket)
    assert raw.startswith(b"HTTP/1.1 413") and b"connection: close" in raw
    assert host.seen == []


def _announce_a_huge_body(path: Path) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        sock.sendall(
            b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 99999999999\r\n\r\n"
        )
        received = b""
        while data := sock.recv(65536):
            received += data
        return received


HIDDEN = b"GET /rt/x.sh HTTP/1.1\r\nhost: x\r\n\r\n"
"""The request an ambiguous framing would hide in a message's body, unfiltered and unmetered."""
POST = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n"
CHUNKS = b"%x\r\n%s\r\n0\r\n\r\n" % (len(MESSAGE), MESSAGE)
LENGTH = b"%d" % len(MESSAGE)
SMUGGLED = {
    "te-and-cl": POST
    + b"content-length: %d\r\ntransfer-encoding: chunked\r\n\r\n" % (len(CHUNKS) + len(HIDDEN))
    + CHUNKS
    + HIDDEN,
    "te-not-only-chunked": POST + b"transfer-encoding: chunked, identity\r\n\r\n" + CHUNKS + HIDDEN,
    "te-other-coding": POST + b"transfer-encoding: gzip\r\n\r\n" + CHUNKS + HIDDEN,
    "te-twice": POST
    + b"transfer-encoding: chunked\r\ntransfer-encoding: chunked\r\n\r\n"
    + CHUNKS
    + HIDDEN,
    "te-on-http-1.0": POST.replace(b"1.1", b"1.0")
    + b"transfer-encoding: chunked\r\n\r\n"
    + CHUNKS
    + HIDDEN,
    "cl-disagree": POST
    + b"content-length: %s\r\ncontent-length: %d\r\n\r\n" % (LENGTH, len(MESSAGE) + len(HIDDEN))
    + MESSAGE
    + HIDDEN,
    "cl-list-disagree": POST + b"content-length: %s, 0\r\n\r\n" % LENGTH + MESSAGE + HIDDEN,
    "cl-plus": POST + b"content-length: +%s\r\n\r\n" % LENGTH + MESSAGE + HIDDEN,
    "cl-negative": POST + b"content-length: -1\r\n\r\n" + MESSAGE + HIDDEN,
    "cl-underscore": POST + b"content-length: 1_0\r\n\r\n" + MESSAGE + HIDDEN,
    "cl-nbsp": POST + b"content-length: \xa0%s\r\n\r\n" % LENGTH + MESSAGE + HIDDEN,
    "cl-look-alike": POST
    + b"content_length: 0\r\ncontent-length: %s\r\n\r\n" % LENGTH
    + MESSAGE
    + HIDDEN,
    "space-before-colon": POST
    + b"transfer-encoding : chunked\r\ncontent-length: %s\r\n\r\n" % LENGTH
    + MESSAGE
    + HIDDEN,
    "obs-fold": POST
    + b"content-length: %s\r\nx-note: a\r\n transfer-encoding: chunked\r\n\r\n" % LENGTH
    + MESSAGE
    + HIDDEN,
    "bare-lf": POST
    + b"x-note: a\ntransfer-encoding: chunked\r\ncontent-length: %s\r\n\r\n" % LENGTH
    + MESSAGE
    + HIDDEN,
    "vertical-tab": POST + b"transfer-encoding: \x0bchunked\r\n\r\n" + CHUNKS + HIDDEN,
    "chunk-size-signed": POST + b"transfer-encoding: chunked\r\n\r\n+" + CHUNKS + HIDDEN,
    "chunk-size-0x": POST + b"transfer-encoding: chunked\r\n\r\n0x" + CHUNKS + HIDDEN,
    "chunk-size-empty": POST + b"transfer-encoding: chunked\r\n\r\n\r\n" + HIDDEN,
    "chunk-longer-than-announced": POST
    + b"transfer-encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(MESSAGE) - 2, MESSAGE)
    + HIDDEN,
}


@pytest.mark.parametrize("raw", SMUGGLED.values(), ids=SMUGGLED.keys())
async def test_an_ambiguous_framing_is_refused_and_nothing_reaches_the_host(raw: bytes) -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1") as spent:
                answer = await asyncio.to_thread(_send_raw, gate.socket, raw)
    assert answer.startswith(b"HTTP/1.1 400") and b"connection: close" in answer
    assert answer.count(b"HTTP/1.1 ") == 1  # the hidden request was never read as one
    _head, _, body = answer.partition(b"\r\n\r\n")
    error = json.loads(body)["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("malformed request: ")
    assert host.seen == [] and spent.requests == 0
    assert gate.meter.refused == 1 and len(gate.counted) == 1
    assert gate.lines == [f"[endpoint] {gate.counted[0]}"]


async def test_the_embedded_model_is_filtered_and_counted_at_no_cost() -> None:
    with PlaybookServer(load_playbook(DEMO_PLAYBOOK)) as server:
        async with endpoint(server.url, priced=False) as gate:
            with gate.meter.window("session initializer") as spent:
                answers = await gate.ask(
                    ("GET", "/rt/x.sh", None), ("POST", "/v1/messages?beta=true", MESSAGE)
                )
    assert answers[0][0] == 404 and answers[1][0] == 200
    assert spent.requests == 1 and spent.input_tokens > 0 and spent.output_tokens > 0
    assert spent.cost_usd == 0.0


async def test_a_request_for_another_host_is_refused_as_malformed_and_counted() -> None:
    with MeteredHost() as host:
        async with endpoint(host.url) as gate:
            with gate.meter.window("session coding-1"):
                raw = await asyncio.to_thread(
                    _send_raw, gate.socket, b"GET http://example.com/rt/x.sh HTTP/1.1\r\n\r\n"
                )
    assert raw.startswith(b"HTTP/1.1 400") and b"malformed request" in raw
    assert host.seen == [] and gate.meter.refused == 1 and len(gate.counted) == 1


def _send_raw(path: Path, data: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received


async def test_the_endpoint_probe_opens_the_endpoint_for_its_own_request() -> None:
    lines: list[str] = []
    ledger = EndpointMeter(priced=True, log=lines.append)
    with FakeEndpoint() as host:
        upstream = Upstream(host.url, "api_key", "sk-real")
        async with ModelProxy(upstream, None, ledger) as url:
            check = functools.partial(probe_endpoint, url, upstream, "claude-sonnet-4-5")
            with pytest.raises(ModelEndpointError, match="403"):
                await check()  # no window: closed like between sessions
            out = io.StringIO()
            warnings = await metered_probe(check, ledger, AgentLog(out))()
    assert warnings == []
    assert "endpoint probe: the model endpoint forwarded 1 request(s)" in out.getvalue()
    assert len(lines) == 1 and "no session of this agent is running" in lines[0]
    assert [seen.path for seen in host.seen] == ["/v1/messages"]
    assert ledger.open is None and ledger.take_last("endpoint probe") is None

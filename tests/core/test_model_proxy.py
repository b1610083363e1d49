"""The agent's model proxy: the real key replaces the dummy one, answers stream through."""

from __future__ import annotations

import asyncio
import io
import socket
import time

import httpx2
import pytest

from agent.core.endpoint import model_proxy
from agent.core.endpoint.model_proxy import (
    DUMMY_KEY,
    OAUTH_BETA,
    PROXY_ERROR_HEADER,
    ModelProxy,
    Upstream,
    upstream_headers,
)
from agent.core.log import AgentLog
from common.credentials import API_KEY, AUTH_TOKEN, BASE_URL, OAUTH_TOKEN

from .model_upstream import Upstream as FakeEndpoint

DUMMY = [("x-api-key", DUMMY_KEY), ("anthropic-version", "2023-06-01"), ("host", "127.0.0.1:1")]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("credentials", "auth"),
    [
        ({API_KEY: "secret-k"}, "api_key"),
        ({AUTH_TOKEN: "secret-t", OAUTH_TOKEN: "secret-o"}, "auth_token"),
        ({OAUTH_TOKEN: "secret-o"}, "oauth"),
        ({BASE_URL: "http://gw/"}, "none"),
        ({API_KEY: "secret-k", AUTH_TOKEN: "secret-t"}, "api_key"),
    ],
)
def test_the_upstream_takes_the_first_credential_in_the_order_the_cli_uses(
    credentials: dict[str, str], auth: str
) -> None:
    upstream = Upstream.from_credentials(credentials)
    assert upstream.auth == auth
    assert upstream.base_url == credentials.get(BASE_URL, "https://api.anthropic.com").rstrip("/")
    assert "secret" not in repr(upstream)


def test_an_api_key_replaces_the_dummy_key_and_hop_by_hop_headers_go() -> None:
    headers = upstream_headers(
        [*DUMMY, ("Authorization", "Bearer x")], Upstream("u", "api_key", "sk")
    )
    assert headers == [("anthropic-version", "2023-06-01"), ("x-api-key", "sk")]


def test_a_token_is_sent_as_bearer_and_an_oauth_token_adds_its_beta() -> None:
    token = upstream_headers(DUMMY, Upstream("u", "auth_token", "tok"))
    assert ("authorization", "Bearer tok") in token
    assert all(name != "x-api-key" for name, _ in token)
    oauth = upstream_headers(
        [*DUMMY, ("anthropic-beta", "claude-code-20250219, x")], Upstream("u", "oauth", "oat")
    )
    assert ("authorization", "Bearer oat") in oauth
    assert ("anthropic-beta", f"claude-code-20250219,x,{OAUTH_BETA}") in oauth


def test_no_credentials_means_no_auth_header_at_all() -> None:
    headers = upstream_headers(DUMMY, Upstream("u", "none"))
    assert headers == [("anthropic-version", "2023-06-01")]


async def test_the_endpoint_sees_the_real_key_and_the_stream_arrives_event_by_event() -> None:
    with FakeEndpoint(pause_s=0.3) as endpoint:
        upstream = Upstream.from_credentials({API_KEY: "sk-real", BASE_URL: endpoint.url})
        async with ModelProxy(upstream) as url, httpx2.AsyncClient() as client:
            body = {"model": "m", "max_tokens": 5, "stream": True, "messages": []}
            arrivals: list[float] = []
            received = b""
            started = time.monotonic()
            headers = {"x-api-key": DUMMY_KEY}
            async with client.stream(
                "POST", f"{url}/v1/messages?beta=true", json=body, headers=headers
            ) as response:
                assert response.status_code == 200
                assert response.headers["content-type"] == "text/event-stream"
                async for chunk in response.aiter_raw():
                    arrivals.append(time.monotonic() - started)
                    received += chunk
    assert [seen.headers["x-api-key"] for seen in endpoint.seen] == ["sk-real"]
    assert endpoint.seen[0].path == "/v1/messages?beta=true"
    assert received.count(b"event: ") == 6  # start, block start/delta/stop, delta, stop
    assert received.endswith(b'data: {"type": "message_stop"}\n\n')
    # Streamed through, not buffered: the first event came long before the last.
    assert len(arrivals) >= 2 and arrivals[-1] - arrivals[0] > 1.0


async def test_a_closed_port_is_answered_502_naming_the_refusal() -> None:
    base = f"http://127.0.0.1:{closed_port()}"
    async with ModelProxy(Upstream(base, "api_key", "sk")) as url, httpx2.AsyncClient() as client:
        response = await client.post(f"{url}/v1/messages", json={})
    assert response.status_code == 502
    assert response.headers[PROXY_ERROR_HEADER] == "refused"
    message = response.json()["error"]["message"]
    assert message.startswith(f"model endpoint {base} refused the connection")
    assert "sk" not in message.split("(")[0]


async def test_an_unknown_host_is_answered_502_naming_dns() -> None:
    upstream = Upstream("http://no-such-host.invalid", "api_key", "sk")
    async with ModelProxy(upstream) as url, httpx2.AsyncClient() as client:
        response = await client.post(f"{url}/v1/messages", json={})
    assert response.status_code == 502
    assert response.headers[PROXY_ERROR_HEADER] == "dns"


async def test_an_ambiguous_framing_without_a_meter_is_refused_and_logged() -> None:
    with FakeEndpoint() as endpoint:
        out = io.StringIO()
        upstream = Upstream(endpoint.url, "api_key", "sk-real")
        async with ModelProxy(upstream, AgentLog(out)) as url:
            port = int(url.rsplit(":", 1)[1])
            hidden = b"POST /v1/messages/count_tokens HTTP/1.1\r\nhost: x\r\n\r\n"
            raw = (
                b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n"
                b"transfer-encoding: chunked\r\n\r\n0\r\n\r\n" + hidden
            )
            answer = await asyncio.to_thread(_send_tcp, port, raw)
    assert answer.startswith(b"HTTP/1.1 400") and answer.count(b"HTTP/1.1 ") == 1
    assert b"both Transfer-Encoding and Content-Length" in answer
    assert endpoint.seen == []
    assert "[endpoint] model endpoint refused a request: malformed request:" in out.getvalue()


def _send_tcp(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(data)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received


async def test_bodies_held_at_once_are_bounded_and_given_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A session's programs sending many large bodies at once (32 connections of 30 MB
    took 2 GB of the agent, outside the session's limits): past the bound, a 429 the CLI
    retries; once answered, the bytes are free for the next request."""
    monkeypatch.setattr(model_proxy, "MAX_HELD_BYTES", 2500)
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "a" * 1000}]}
    with FakeEndpoint(pause_s=0.5) as endpoint:
        upstream = Upstream.from_credentials({API_KEY: "sk-real", BASE_URL: endpoint.url})
        async with ModelProxy(upstream) as url, httpx2.AsyncClient() as client:
            answers = await asyncio.gather(
                *(client.post(f"{url}/v1/messages", json=body) for _ in range(3))
            )
            later = await client.post(f"{url}/v1/messages", json=body)
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200, 200, 429]
    refused = next(answer for answer in answers if answer.status_code == 429)
    assert refused.json()["error"]["type"] == "rate_limit_error"
    assert later.status_code == 200

"""The HTTP server over real sockets, the ``python -m agent.model`` process and its launcher."""

from __future__ import annotations

import asyncio
import http.client
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from agent.model import LocalModel, LocalModelError, PlaybookServer, parse_faults
from agent.model.playbook import Playbook

REPO = Path(__file__).resolve().parents[2]

PLAYBOOK: dict[str, Any] = {
    "schema_version": 1,
    "scenarios": [
        {
            "name": "demo",
            "match": "Session: demo",
            "steps": [
                {"text": "Hello there."},
                {
                    "text": "Reading.",
                    "tool_uses": [
                        {"name": "Read", "input": {"file_path": "/x/a.txt"}},
                        {"name": "mcp__harness__ping", "input": {"n": 1, "tags": ["a"]}},
                    ],
                },
            ],
        }
    ],
    "fallback_text": "fallback",
}


def body(*, stream: bool, assistant_turns: int = 0) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Session: demo"}]
    for _ in range(assistant_turns):
        messages += [
            {"role": "assistant", "content": "earlier"},
            {"role": "user", "content": "go on"},
        ]
    return {
        "model": "claude-test",
        "max_tokens": 100,
        "stream": stream,
        "system": [{"type": "text", "text": "You are a test."}],
        "messages": messages,
        "tools": [{"name": "Read", "input_schema": {"type": "object"}}],
    }


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = {name.lower(): value for name, value in response.getheaders()}
        self.raw = response.read()

    def json(self) -> Any:
        return json.loads(self.raw)


def send(url: str, method: str, path: str, payload: bytes | None = None) -> Answer:
    address = urlsplit(url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
    try:
        headers = {"content-type": "application/json"}
        connection.request(method, path, body=payload, headers=headers)
        return Answer(connection.getresponse())
    finally:
        connection.close()


def post(url: str, path: str, data: Any) -> Answer:
    return send(url, "POST", path, json.dumps(data).encode())


def parse_sse(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for chunk in raw.decode().split("\n\n"):
        if not chunk:
            continue
        event_line, data_line = chunk.split("\n")
        assert event_line.startswith("event: ")
        assert data_line.startswith("data: ")
        data = json.loads(data_line.removeprefix("data: "))
        assert data["type"] == event_line.removeprefix("event: ")
        events.append((data["type"], data))
    return events


def assemble(events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """Rebuild the message as a streaming client does."""
    message: dict[str, Any] = {}
    partial: dict[int, str] = {}
    for name, data in events:
        if name == "message_start":
            message = data["message"]
        elif name == "content_block_start":
            assert data["index"] == len(message["content"])
            message["content"].append(dict(data["content_block"]))
        elif name == "content_block_delta":
            block, delta = message["content"][data["index"]], data["delta"]
            if delta["type"] == "text_delta":
                block["text"] += delta["text"]
            else:
                assert delta["type"] == "input_json_delta"
                partial[data["index"]] = partial.get(data["index"], "") + delta["partial_json"]
        elif name == "content_block_stop":
            if data["index"] in partial:
                message["content"][data["index"]]["input"] = json.loads(partial[data["index"]])
        elif name == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
            message["usage"] = data["usage"]
    return message


@pytest.fixture
def server() -> Iterator[PlaybookServer]:
    with PlaybookServer(Playbook.model_validate(PLAYBOOK), slow_seconds=0.3) as running:
        yield running


def test_url_is_loopback_with_the_bound_port(server: PlaybookServer) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    assert int(server.url.rsplit(":", 1)[1]) > 0


def test_streaming_text_answer(server: PlaybookServer) -> None:
    answer = post(server.url, "/v1/messages?beta=true", body(stream=True))
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/event-stream"
    events = parse_sse(answer.raw)
    assert [name for name, _ in events] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    start = events[0][1]["message"]
    assert start["id"].startswith("msg_")
    assert (start["type"], start["role"], start["model"]) == ("message", "assistant", "claude-test")
    assert (start["content"], start["stop_reason"]) == ([], None)
    assert set(start["usage"]) == {"input_tokens", "output_tokens"}
    message = assemble(events)
    assert message["content"] == [{"type": "text", "text": "Hello there."}]
    assert message["stop_reason"] == "end_turn"


def test_streaming_tool_use_answer(server: PlaybookServer) -> None:
    answer = post(server.url, "/v1/messages?beta=true", body(stream=True, assistant_turns=1))
    message = assemble(parse_sse(answer.raw))
    text, read, ping = message["content"]
    assert text == {"type": "text", "text": "Reading."}
    assert (read["type"], read["name"], read["input"]) == (
        "tool_use",
        "Read",
        {"file_path": "/x/a.txt"},
    )
    assert (ping["name"], ping["input"]) == ("mcp__harness__ping", {"n": 1, "tags": ["a"]})
    assert read["id"] != ping["id"]
    assert message["stop_reason"] == "tool_use"


def test_non_streaming_answer(server: PlaybookServer) -> None:
    answer = post(server.url, "/v1/messages", body(stream=False, assistant_turns=1))
    assert answer.status == 200
    assert answer.headers["content-type"] == "application/json"
    message = answer.json()
    assert (message["type"], message["role"], message["model"]) == (
        "message",
        "assistant",
        "claude-test",
    )
    assert [block["type"] for block in message["content"]] == ["text", "tool_use", "tool_use"]
    assert message["content"][1]["input"] == {"file_path": "/x/a.txt"}
    assert message["stop_reason"] == "tool_use"
    assert message["usage"]["input_tokens"] > 0


def test_request_without_tools_gets_the_fallback(server: PlaybookServer) -> None:
    data = body(stream=False)
    del data["tools"]
    message = post(server.url, "/v1/messages", data).json()
    assert message["content"] == [{"type": "text", "text": "fallback"}]
    assert message["stop_reason"] == "end_turn"


def test_count_tokens(server: PlaybookServer) -> None:
    data = body(stream=False)
    answer = post(server.url, "/v1/messages/count_tokens?beta=true", data)
    assert answer.status == 200
    assert answer.json() == {"input_tokens": len(json.dumps(data)) // 4}
    assert server.requests_served == 0


@pytest.mark.parametrize(
    ("method", "path"), [("POST", "/v1/complete"), ("GET", "/"), ("GET", "/v1/messages")]
)
def test_unknown_path_is_404(server: PlaybookServer, method: str, path: str) -> None:
    answer = send(server.url, method, path, b"{}" if method == "POST" else None)
    assert answer.status == 404
    assert answer.json()["type"] == "error"
    assert answer.json()["error"]["type"] == "not_found_error"


@pytest.mark.parametrize("payload", [b"{not json", b"[1, 2]", b"\xff\xfe"])
def test_malformed_body_is_400(server: PlaybookServer, payload: bytes) -> None:
    answer = send(server.url, "POST", "/v1/messages", payload)
    assert answer.status == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"


def test_keep_alive_connection_serves_several_requests(server: PlaybookServer) -> None:
    address = urlsplit(server.url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=10)
    try:
        for turns in (0, 1, 2):
            payload = json.dumps(body(stream=True, assistant_turns=turns)).encode()
            connection.request("POST", "/v1/messages?beta=true", body=payload)
            response = connection.getresponse()
            assert response.status == 200
            response.read()
    finally:
        connection.close()
    assert server.requests_served == 3


def test_faults_apply_in_order_then_answers_are_normal() -> None:
    playbook = Playbook.model_validate(PLAYBOOK)
    faults = ["429", "500", "529", "slow"]
    with PlaybookServer(playbook, faults=faults, slow_seconds=0.3) as server:
        rate_limited = post(server.url, "/v1/messages", body(stream=True))
        assert rate_limited.status == 429
        assert rate_limited.headers["retry-after"] == "0"
        assert rate_limited.json()["error"]["type"] == "rate_limit_error"

        internal = post(server.url, "/v1/messages", body(stream=True))
        assert (internal.status, internal.json()["error"]["type"]) == (500, "api_error")

        overloaded = post(server.url, "/v1/messages", body(stream=True))
        assert (overloaded.status, overloaded.json()["error"]["type"]) == (529, "overloaded_error")

        started = time.monotonic()
        slow = post(server.url, "/v1/messages", body(stream=False))
        assert time.monotonic() - started >= 0.3
        assert slow.status == 200
        assert slow.json()["content"][0]["text"] == "Hello there."

        started = time.monotonic()
        assert post(server.url, "/v1/messages", body(stream=False)).status == 200
        assert time.monotonic() - started < 0.3
        assert server.requests_served == 5


def test_slow_fault_defaults_to_two_seconds() -> None:
    server = PlaybookServer(Playbook.model_validate(PLAYBOOK), faults=["slow"])
    try:
        assert server.slow_seconds == 2.0
    finally:
        server.stop()


def test_parse_faults() -> None:
    assert parse_faults("429, 500,,529,slow") == ["429", "500", "529", "slow"]
    assert parse_faults("") == []
    with pytest.raises(ValueError, match="unknown fault '503'"):
        parse_faults("429,503")
    with pytest.raises(ValueError):
        PlaybookServer(Playbook.model_validate(PLAYBOOK), faults=["boom"])


# The process: python -m agent.model


def write_playbook(tmp_path: Path, data: Any = PLAYBOOK) -> Path:
    path = tmp_path / "playbook.json"
    path.write_text(json.dumps(data))
    return path


def run_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent.model", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_module_with_missing_playbook_exits_2_with_one_line(tmp_path: Path) -> None:
    done = run_module("--playbook", str(tmp_path / "absent.json"))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: ") and "does not exist" in done.stderr


def test_module_with_invalid_playbook_or_faults_exits_2(tmp_path: Path) -> None:
    bad = write_playbook(tmp_path, {"schema_version": 1, "scenarios": [{"name": "s"}]})
    done = run_module("--playbook", str(bad))
    assert (done.returncode, done.stderr.count("\n")) == (2, 1)
    assert "Traceback" not in done.stderr
    done = run_module("--playbook", str(write_playbook(tmp_path)), "--faults", "418")
    assert (done.returncode, done.stderr.count("\n")) == (2, 1)
    assert "unknown fault" in done.stderr


def test_module_prints_its_url_first_and_stops_on_sigterm(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent.model",
            "--playbook",
            str(write_playbook(tmp_path)),
            "--faults",
            "500",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:")
        url = line.removeprefix("listening on ").strip()
        assert post(url, "/v1/messages", body(stream=False)).status == 500
        assert post(url, "/v1/messages", body(stream=False)).status == 200
        process.terminate()
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stderr is not None
        assert process.stderr.read() == ""


# The launcher: LocalModel


async def test_local_model_serves_and_stops(tmp_path: Path) -> None:
    model = LocalModel(write_playbook(tmp_path), faults=["429"])
    async with model as url:
        assert url == model.url
        first = await asyncio.to_thread(post, url, "/v1/messages", body(stream=False))
        second = await asyncio.to_thread(post, url, "/v1/messages", body(stream=False))
        assert (first.status, second.status) == (429, 200)
        process = model._process
        assert process is not None
    assert process.returncode is not None
    with pytest.raises(LocalModelError, match="not running"):
        _ = model.url
    with pytest.raises(OSError):
        post(url, "/v1/messages", body(stream=False))


async def test_local_model_with_bad_playbook_raises_with_the_reason(tmp_path: Path) -> None:
    with pytest.raises(LocalModelError, match=r"did not start: error: .*does not exist"):
        async with LocalModel(tmp_path / "absent.json"):
            pass


async def test_local_model_child_exits_when_its_stdin_closes(tmp_path: Path) -> None:
    model = LocalModel(write_playbook(tmp_path))
    async with model:
        process = model._process
        assert process is not None and process.stdin is not None
        process.stdin.close()  # what the kernel does when the agent is killed
        assert await asyncio.wait_for(process.wait(), 5) == 0


async def test_local_model_logs_stderr_to_the_given_file(tmp_path: Path) -> None:
    log = tmp_path / "model.log"
    with pytest.raises(LocalModelError, match="unknown fault"):
        async with LocalModel(write_playbook(tmp_path), faults=["nope"], log_path=log):
            pass
    assert "unknown fault" in log.read_text()

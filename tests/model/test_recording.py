"""Request recording: what each request weighed, by part, from the server and the process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.model import LocalModel, PlaybookServer
from agent.model.playbook import Playbook
from agent.model.recording import RECORD_ENV, RequestRecorder, describe, read_records
from tests.model.test_server import PLAYBOOK, body, post

BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "system": [{"type": "text", "text": "Be brief."}],
    "messages": [
        {"role": "user", "content": "Session: demo"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "é"}},
                {"type": "tool_use", "id": "t2", "name": "mcp__harness__ping", "input": {}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1"}]},
    ],
    "tools": [{"name": "Read", "input_schema": {}}, {"name": "mcp__harness__ping"}],
}


def compact(part: Any) -> int:
    return len(json.dumps(part, separators=(",", ":"), ensure_ascii=False).encode())


def test_describe_measures_each_part_and_lists_tools_and_calls() -> None:
    record = describe(4321, BODY)
    assert record.total_bytes == 4321
    assert record.system_bytes == compact(BODY["system"])
    assert record.messages_bytes == compact(BODY["messages"])  # "é" counts as two bytes
    assert record.tools_bytes == compact(BODY["tools"])
    assert record.tool_names == ["Read", "mcp__harness__ping"]
    assert record.tool_calls == ["Read", "mcp__harness__ping"]
    assert record.message_count == 3
    assert record.model == "claude-sonnet-4-5"


def test_describe_a_request_without_tools_or_system() -> None:
    record = describe(10, {"messages": [{"role": "user", "content": "hi"}]})
    assert (record.system_bytes, record.tools_bytes, record.tool_names) == (0, 0, [])
    assert (record.tool_calls, record.message_count, record.model) == ([], 1, "")


def test_the_server_records_every_messages_request_it_receives(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    playbook = Playbook.model_validate(PLAYBOOK)
    with PlaybookServer(playbook, recorder=RequestRecorder(path), faults=["500"]) as server:
        first = body(stream=True)
        assert post(server.url, "/v1/messages", first).status == 500  # faulted, still recorded
        assert post(server.url, "/v1/messages", body(stream=False, assistant_turns=1)).status == 200
        assert post(server.url, "/v1/messages/count_tokens", first).status == 200  # not a turn
    records = read_records(path)
    assert [r.message_count for r in records] == [1, 3]
    assert records[0].total_bytes == len(json.dumps(first).encode())
    assert records[0].tool_names == ["Read"]


def test_no_file_means_no_records(tmp_path: Path) -> None:
    assert read_records(tmp_path / "absent.jsonl") == []


@pytest.mark.slow
async def test_the_model_process_records_to_the_file_named_in_its_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "requests.jsonl"
    playbook = tmp_path / "playbook.json"
    playbook.write_text(json.dumps(PLAYBOOK))
    monkeypatch.setenv(RECORD_ENV, str(path))
    async with LocalModel(playbook) as url:
        assert post(url, "/v1/messages", body(stream=True)).status == 200
    [record] = read_records(path)
    assert record.model == "claude-test"
    assert record.tools_bytes == compact(body(stream=True)["tools"])

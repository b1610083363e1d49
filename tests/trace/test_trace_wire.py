"""Exchanges as trace events, answers from a trace, and the comparison of two sessions."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from agent.control.trace_compare import SessionRecord, differences
from agent.control.trace_view import render, totals
from agent.core.trace import trace
from agent.core.trace.trace_wire import decode_body, exchange_event, fold_answer, record_exchange
from agent.model import wire
from agent.model.playbook import Reply, TextBlock, ToolUseBlock
from agent.model.trace_playbook import NO_ANSWER, TraceAnswers
from common.schemas.trace import (
    ModelRequest,
    PolicyDecision,
    SessionEnd,
    SessionStart,
    ToolCall,
    ToolResult,
    TraceEvent,
)

REPLY = Reply(
    content=[
        TextBlock(text="Reading it."),
        ToolUseBlock(id="toolu_1", name="Read", input={"file_path": "/p/README.md"}),
    ]
)


def request_body(assistant_turns: int, tools: bool = True) -> dict[str, object]:
    messages: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for _ in range(assistant_turns):
        messages += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]
    body: dict[str, object] = {"model": "m", "system": "sys", "messages": messages}
    if tools:
        body["tools"] = [{"name": "Read", "input_schema": {}}]
    return body


def test_a_streamed_answer_folds_into_its_content_stop_reason_and_usage() -> None:
    stream = wire.encode_sse(wire.sse_events(REPLY, "m", 42))
    folded = fold_answer(stream, "text/event-stream; charset=utf-8")
    assert folded["stop_reason"] == "tool_use"
    assert folded["content"][0] == {"type": "text", "text": "Reading it."}
    assert folded["content"][1]["input"] == {"file_path": "/p/README.md"}
    assert folded["usage"]["input_tokens"] == 42


def test_a_json_answer_and_a_gzip_body_are_read_too() -> None:
    message = wire.message_json(REPLY, "m", 7)
    packed = gzip.compress(json.dumps(message).encode())
    folded = fold_answer(decode_body(packed, "gzip"), "application/json")
    assert folded["stop_reason"] == "tool_use"
    assert folded["content"][1]["name"] == "Read"


def test_an_exchange_event_measures_the_request_and_keeps_the_answer_redacted() -> None:
    body = request_body(2)
    raw = json.dumps(body).encode()
    answer = wire.message_json(
        Reply(content=[TextBlock(text="token sk-ant-abcdefghijklmnop")]), "m", 1
    )
    event = exchange_event(
        index=3,
        raw_request=raw,
        status=200,
        answer=json.dumps(answer).encode(),
        content_type="application/json",
        duration_ms=5,
    )
    assert event is not None
    assert (event.index, event.step, event.has_tools, event.message_count) == (3, 2, True, 5)
    assert event.request_bytes == len(raw)
    assert event.tool_names == ["Read"]
    assert event.stop_reason == "end_turn"
    assert "sk-ant" not in json.dumps(event.content)
    assert (
        exchange_event(
            index=1, raw_request=b"[]", status=200, answer=b"", content_type="", duration_ms=0
        )
        is None
    )


def recorded_request(step: int, content: list[dict[str, Any]], tools: bool = True) -> ModelRequest:
    return ModelRequest(
        index=step + 1,
        step=step,
        has_tools=tools,
        request_bytes=1,
        system_bytes=1,
        messages_bytes=1,
        tools_bytes=1,
        message_count=1,
        status=200,
        content=content,
    )


def test_trace_answers_are_keyed_by_step_and_rewrite_the_project_path() -> None:
    use = {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/orig/a.py"}}
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "sig"}
    answers = TraceAnswers(
        [
            recorded_request(0, [thinking, use]),
            recorded_request(1, [{"type": "text", "text": "done"}]),
            recorded_request(0, [{"type": "text", "text": "a title"}], tools=False),
        ],
        {"/orig": "/copy"},
    )
    first = answers.reply(request_body(0))
    assert first.stop_reason == "tool_use"
    assert isinstance(first.content[0], ToolUseBlock)  # thinking dropped
    assert first.content[0].input == {"file_path": "/copy/a.py"}
    assert answers.reply(request_body(1)).stop_reason == "end_turn"
    plain = answers.reply(request_body(0, tools=False)).content[0]
    assert isinstance(plain, TextBlock) and plain.text == "a title"
    missing = answers.reply(request_body(5)).content[0]
    assert isinstance(missing, TextBlock) and missing.text == NO_ANSWER
    assert answers.missing == [5]


def record(project: str, decision: str = "allow", touched: tuple[str, ...] = ()) -> SessionRecord:
    start = SessionStart(
        session=1,
        label="coding #1",
        builtin_tools=["Write"],
        harness_tools=[],
        system_prompt="s",
        prompt="p",
        project_dir=project,
    )
    return SessionRecord(
        start=start,
        requests=[recorded_request(0, [])],
        calls=[ToolCall(session=1, id="t1", name="Write", input={"file_path": f"{project}/a"})],
        results=[ToolResult(session=1, id="t1", is_error=decision == "deny", preview="", chars=0)],
        policy=[PolicyDecision(session=1, tool="Write", decision=decision)],
        end=SessionEnd(session=1, label="coding #1", turns=2, touched=list(touched)),
    )


def test_the_same_behaviour_in_another_folder_has_no_differences() -> None:
    assert differences(record("/orig", touched=("a",)), record("/copy", touched=("a",)), []) == []


def test_a_changed_policy_shows_as_differences() -> None:
    found = differences(record("/orig", touched=("a",)), record("/copy", "deny"), [3])
    text = "\n".join(found)
    assert "no recorded answer" in text
    assert "policy decisions" in text
    assert "tool result 1" in text
    assert "session touched" in text


def test_the_rendering_shows_each_event_and_the_totals() -> None:
    events: list[TraceEvent] = [
        SessionStart(
            session=1,
            label="coding #1",
            builtin_tools=[],
            harness_tools=[],
            system_prompt="s",
            prompt="p",
            project_dir="/p",
            head="abc",
        ),
        recorded_request(0, []).model_copy(update={"session": 1}),
        PolicyDecision(session=1, tool="Bash", decision="deny", reason="git push is the harness's"),
        SessionEnd(session=1, label="coding #1", input_tokens=10, output_tokens=5, cost_usd=0.5),
    ]
    text = render(events)
    assert "session 1: coding #1" in text
    assert "policy denied Bash: git push is the harness's" in text
    assert "total: 1 session(s), 1 request(s)" in text
    assert totals(events).cost_usd == 0.5


def test_an_unreadable_answer_is_left_out_of_the_trace(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    raw = json.dumps(request_body(0)).encode()
    with trace.tracing(path) as tracer:
        session = tracer.start_session()
        record_exchange(
            "/v1/messages?beta=true",
            raw,
            200,
            b"\x1f\x8bnot gzip",
            {"content-encoding": "gzip"},
            1,
            session=session,
        )
        record_exchange("/v1/messages/count_tokens", raw, 200, b"{}", {}, 1, session=session)
        json_answer = {"content-type": "application/json"}
        record_exchange("/v1/messages", raw, 200, b"{}", json_answer, 1, session=session)
    events = trace.read_trace(path)
    assert [(e.type, getattr(e, "index", None)) for e in events] == [("model_request", 2)]
    assert [e.session for e in events] == [1]

"""The trace file: schema round trips, the writer, the reader and redaction."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent.core.trace import trace
from common.schemas.gates import TestRun
from common.schemas.trace import (
    TRACE_EVENT,
    GateRun,
    ModelRequest,
    PolicyDecision,
    SessionEnd,
    SessionStart,
    ToolCall,
)


def start(label: str = "coding #1") -> SessionStart:
    return SessionStart(
        label=label,
        builtin_tools=["Read"],
        harness_tools=["report_issue_done"],
        system_prompt="system",
        prompt="prompt",
        project_dir="/p",
    )


def test_every_event_kind_round_trips_through_its_discriminator() -> None:
    events = [
        start(),
        ModelRequest(
            index=1,
            step=0,
            has_tools=True,
            request_bytes=10,
            system_bytes=1,
            messages_bytes=2,
            tools_bytes=3,
            message_count=1,
            status=200,
            content=[{"type": "text", "text": "hi"}],
        ),
        ToolCall(id="t1", name="Read", input={"file_path": "/p/a"}),
        PolicyDecision(tool="Bash", decision="deny", reason="git commit is the harness's"),
        SessionEnd(label="coding #1", turns=2, touched=["a.py"], reports=["report_issue_done"]),
        GateRun(command="pytest", exit_code=1, summary="1 failed", duration_s=0.5),
    ]
    for event in events:
        again = TRACE_EVENT.validate_json(event.model_dump_json())
        assert again == event
        assert type(again) is type(event)


def test_the_writer_numbers_sessions_and_fills_in_the_running_one(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with trace.tracing(path) as tracer:
        session = tracer.start_session()
        assert session.number == 1
        with trace.within(session):
            trace.emit(start())
            trace.policy("Read", None)
        tracer.end_session(session)
        trace.gate(TestRun(command="pytest", exit_code=0, duration_s=0.1, summary="1 passed"))
    events = trace.read_trace(path)
    assert [e.type for e in events] == ["session_start", "policy", "gate"]
    assert [e.session for e in events] == [1, 1, None]
    with trace.tracing(path) as tracer:  # a resumed agent continues the count
        assert tracer.start_session().number == 2
    assert trace.current() is None


def test_emit_without_an_open_trace_records_nothing(tmp_path: Path) -> None:
    trace.emit(start())  # no error, no file
    assert trace.current() is None
    assert list(tmp_path.iterdir()) == []


def test_a_torn_last_line_is_skipped_with_a_warning_and_ended_on_reopen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(start().model_dump_json() + "\n" + '{"type": "session_end", "lab')
    with caplog.at_level(logging.WARNING):
        events = trace.read_trace(path)
    assert [e.type for e in events] == ["session_start"]
    assert "torn" in caplog.text
    with trace.tracing(path) as tracer:  # appending after a kill starts a new line
        tracer.start_session()
        trace.emit(start("again"))
    labels = [e.label for e in trace.read_trace(path) if isinstance(e, SessionStart)]
    assert labels == ["coding #1", "again"]


def test_a_line_that_is_json_but_no_event_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps({"type": "nonsense"}) + "\n")
    with pytest.raises(ValueError, match="not a trace event"):
        trace.read_trace(path)


def test_redaction_of_token_shapes_and_configured_secrets() -> None:
    text = "key sk-ant-api03-abcdefghijkl and glpat-ABCDEFGHIJ12 and hunter2secret"
    redacted = trace.redact(text, ["hunter2secret", "ab"])
    assert "sk-ant" not in redacted
    assert "glpat-" not in redacted
    assert "hunter2secret" not in redacted
    assert "and" in redacted  # a too-short configured value blanks nothing
    nested = trace.redact_value({"a": ["x hunter2secret"], "n": 3}, ["hunter2secret"])
    assert nested == {"a": [f"x {trace.REDACTED}"], "n": 3}


def test_tool_inputs_and_results_are_redacted_in_the_trace(tmp_path: Path) -> None:
    from claude_agent_sdk import AssistantMessage, ToolResultBlock, ToolUseBlock, UserMessage

    from agent.core.session import trace_session

    path = tmp_path / "trace.jsonl"
    with trace.tracing(path, ["s3cr3t-value"]):
        use = ToolUseBlock(id="t1", name="Bash", input={"command": "echo s3cr3t-value"})
        trace_session.message(AssistantMessage(content=[use], model="m"))
        result = ToolResultBlock(tool_use_id="t1", content="s3cr3t-value\n", is_error=False)
        trace_session.message(UserMessage(content=[result]))
    text = path.read_text()
    assert "s3cr3t-value" not in text
    assert text.count(trace.REDACTED) == 2


def test_a_damaged_trace_still_numbers_on(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(start().model_dump_json() + "\n" + json.dumps({"type": "nonsense"}) + "\n")
    assert trace.count_sessions(path) == 1
    with trace.tracing(path) as tracer:
        assert tracer.start_session().number == 2

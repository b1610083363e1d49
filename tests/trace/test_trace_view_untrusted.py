"""``harness trace`` shows what the model wrote escaped, one event per line."""

from __future__ import annotations

import pytest

from agent.control.trace_view import render
from common.schemas.trace import (
    CommitMade,
    DecisionMade,
    GateRun,
    PolicyDecision,
    SessionEnd,
    ToolCall,
    ToolResult,
    TraceEvent,
)

PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x1b[32m\u202e\u200b\r\n[harness] APPROVED"
SHOWN = "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m<U+202E><U+200B>\\r\\n[harness] APPROVED"


@pytest.mark.parametrize(
    "event",
    [
        SessionEnd(session=1, label="coding", error=f"failed {PAYLOAD}"),
        SessionEnd(session=1, label="coding", touched=[f"notes/{PAYLOAD}.md"]),
        PolicyDecision(session=1, tool="Bash", decision="deny", reason=f"no {PAYLOAD}"),
        GateRun(command="pytest", exit_code=1, summary=f"1 failed {PAYLOAD}", duration_s=1),
        CommitMade(sha="a" * 40, subject=f"feat: {PAYLOAD}", files=1),
        DecisionMade(checkpoint="ic-1", approved=False, by="me", reason=f"no {PAYLOAD}"),
    ],
    ids=["session-error", "touched", "policy", "gate", "commit", "decision"],
)
def test_each_event_line_is_escaped_and_stays_one_line(event: TraceEvent) -> None:
    text = render([event])
    assert len(text.splitlines()) == 2  # the event and the totals
    assert not any(char in text for char in "\x1b\x07\u202e\u200b\r")
    assert "[harness]" not in text.splitlines()[0][:12]


def test_a_failed_tool_calls_input_and_output_are_escaped() -> None:
    events: list[TraceEvent] = [
        ToolCall(session=1, id="t1", name="Write", input={"file_path": f"x{PAYLOAD}"}),
        ToolResult(session=1, id="t1", is_error=True, preview=f"err {PAYLOAD}", chars=9),
    ]
    line = render(events).splitlines()[0]
    assert "\\u001b]0;pwned" in line  # the input as JSON
    assert "err \\x1b]0;pwned" in line or line.endswith("…")
    assert line.isprintable()


def test_the_commit_subject_reads_escaped() -> None:
    line = render([CommitMade(sha="a" * 40, subject=f"feat: {PAYLOAD}", files=1)]).splitlines()[0]
    assert line.endswith(f"commit aaaaaaaaaaaa feat: {SHOWN} (1 file(s))")

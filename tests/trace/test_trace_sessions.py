"""Sessions that overlap in one trace: each has its own number and request count, and
every event lands on the session whose task (or window) recorded it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.control.trace_compare import session_record
from agent.control.trace_view import ambiguous, render, select
from agent.core.session.tools import SessionReports
from agent.core.session.trace_session import traced_session
from agent.core.trace import trace
from common.schemas.gates import TestRun
from common.schemas.trace import (
    ModelRequest,
    PolicyDecision,
    SessionEnd,
    SessionStart,
    TraceEvent,
)


def request(index: int, session: int | None) -> ModelRequest:
    return ModelRequest(
        session=session,
        index=index,
        step=index - 1,
        has_tools=True,
        request_bytes=1000,
        system_bytes=100,
        messages_bytes=800,
        tools_bytes=100,
        message_count=index,
        status=200,
    )


def start(number: int, label: str) -> SessionStart:
    return SessionStart(
        session=number,
        label=label,
        builtin_tools=["Read"],
        harness_tools=[],
        system_prompt="system",
        prompt="prompt",
        project_dir="/p",
    )


def test_two_overlapping_sessions_number_their_own_events_and_requests(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with trace.tracing(path) as tracer:
        first = tracer.start_session()
        second = tracer.start_session()
        assert (first.number, second.number) == (1, 2)
        assert tracer.running == (first, second)
        order = [first, second, second, first, second]
        indexes = [tracer.next_request(session) for session in order]
        with trace.within(first):
            trace.policy("Read", None)
            with trace.within(second):  # the innermost session is the task's
                trace.policy("Bash", "no")
            trace.policy("Edit", None)
        tracer.end_session(first)
        with trace.within(second):
            trace.policy("Write", None)
        tracer.end_session(second)
        assert not tracer.running
    assert indexes == [1, 1, 2, 2, 3]
    events = trace.read_trace(path)
    assert [(e.tool, e.session) for e in events if isinstance(e, PolicyDecision)] == [
        ("Read", 1),
        ("Bash", 2),
        ("Edit", 1),
        ("Write", 2),
    ]


def test_requests_outside_every_session_are_counted_apart(tmp_path: Path) -> None:
    with trace.tracing(tmp_path / "trace.jsonl") as tracer:
        assert tracer.next_request(None) == 1  # the endpoint probe, before any session
        session = tracer.start_session()
        assert tracer.next_request(session) == 1
        assert tracer.next_request(None) == 2
        assert tracer.next_request(session) == 2


def test_the_sole_session_is_named_only_when_exactly_one_runs(tmp_path: Path) -> None:
    with trace.tracing(tmp_path / "trace.jsonl") as tracer:
        assert tracer.sole_session() is None
        first = tracer.start_session()
        assert tracer.sole_session() is first
        second = tracer.start_session()
        assert tracer.sole_session() is None  # two run: no guess
        tracer.end_session(first)
        assert tracer.sole_session() is second


def test_an_event_that_names_its_session_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with trace.tracing(path) as tracer:
        mine = tracer.start_session()
        with trace.within(mine):
            trace.emit(request(1, session=7))
            tracer.write(request(2, session=None), None)  # no session given: none filled in
    assert [e.session for e in trace.read_trace(path)] == [7, None]


async def test_sessions_running_in_tasks_at_once_each_get_their_own_events(
    tmp_path: Path,
) -> None:
    """As parallel slots run them: each session in its own task, its hooks in tasks it
    starts, and a gate of another slot between sessions meanwhile."""
    path = tmp_path / "trace.jsonl"
    both_started = asyncio.Barrier(3)

    async def session(label: str, tools: list[str]) -> None:
        async with traced_session(label, "system", "prompt", tmp_path, None, SessionReports()):
            await both_started.wait()
            for tool in tools:
                await asyncio.sleep(0.01)
                hook = asyncio.create_task(asyncio.to_thread(trace.policy, tool, None))
                await hook  # a task the session started (as the SDK runs hooks) and a thread

    async def gate_of_another_slot() -> None:
        await both_started.wait()
        await asyncio.sleep(0.015)
        trace.gate(TestRun(command="pytest", exit_code=0, duration_s=0.1, summary="ok"))

    with trace.tracing(path):
        await asyncio.gather(
            session("coding issue #1", ["A1", "A2", "A3"]),
            session("coding issue #2", ["B1", "B2", "B3"]),
            gate_of_another_slot(),
        )
    events = trace.read_trace(path)
    numbers = {e.label: e.session for e in events if isinstance(e, SessionStart)}
    assert set(numbers.values()) == {1, 2}
    ends = {e.label: e.session for e in events if isinstance(e, SessionEnd)}
    assert ends == numbers
    tools = [(e.tool, e.session) for e in events if isinstance(e, PolicyDecision)]
    first, second = numbers["coding issue #1"], numbers["coding issue #2"]
    assert len(tools) == 6 and set(tools) == {(f"A{i}", first) for i in (1, 2, 3)} | {
        (f"B{i}", second) for i in (1, 2, 3)
    }
    interleaved = [session or 0 for _, session in tools]
    assert interleaved != sorted(interleaved)  # the two really ran at once
    assert [e.session for e in events if e.type == "gate"] == [None]
    assert trace.active_session() is None


def interleaved_trace() -> list[TraceEvent]:
    return [
        start(1, "coding issue #1"),
        request(1, 1),
        start(2, "coding issue #2"),
        request(1, 2),
        request(2, 1),
        SessionEnd(session=1, label="coding issue #1"),
        request(2, 2),
        SessionEnd(session=2, label="coding issue #2"),
        request(3, 2),  # a late answer, recorded after its session's end
    ]


def test_lines_name_their_session_only_where_sessions_overlap() -> None:
    events = interleaved_trace()
    assert ambiguous(events) == [False, False, True, True, True, True, False, False, True]
    lines = render(events).splitlines()
    requests = [line.split(" ", 1)[1] for line in lines if "request " in line and "──" not in line]
    assert [r.split(" (step")[0] for r in requests] == [
        "  request 1",
        "[s2] request 1",
        "[s1] request 2",
        "  request 2",
        "[s2] request 3",
    ]


def test_one_session_at_a_time_renders_as_before() -> None:
    events: list[TraceEvent] = [
        start(1, "coding issue #1"),
        request(1, 1),
        PolicyDecision(session=1, tool="Bash", decision="deny", reason="no"),
        SessionEnd(session=1, label="coding issue #1"),
        start(2, "coding issue #2"),
        request(1, 2),
        SessionEnd(session=2, label="coding issue #2"),
    ]
    assert not any(ambiguous(events))
    text = render(events)
    assert "[s" not in text
    assert "  request 1 (step 0)" in text and "  policy denied Bash: no" in text


def test_one_session_of_interleaved_ones_is_selected_and_replayed_alone() -> None:
    """``harness trace --session N`` and ``harness replay`` take a session by its number,
    not by where its lines stand."""
    events = interleaved_trace()
    chosen = select(events, 2)
    assert [e.session for e in chosen] == [2] * 5
    assert ambiguous(chosen) == [False] * 4 + [True]  # alone, only its late answer is marked
    record = session_record(events, 2)
    assert record is not None and record.start.label == "coding issue #2"
    assert [r.index for r in record.requests] == [1, 2, 3]
    assert record.end is not None and record.end.session == 2

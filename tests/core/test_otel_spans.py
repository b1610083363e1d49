"""The agent's trace events become OpenTelemetry spans, exported over OTLP/HTTP, when asked.

Exported to a local receiver that decodes what a collector would get; without an
endpoint the SDK is never imported.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from agent.core.trace import spans
from agent.process.main import session_environment
from common.schemas.base import utc_now
from common.schemas.spend import Spend
from common.schemas.trace import (
    CheckpointOpened,
    DecisionMade,
    GateRun,
    SessionEnd,
    SessionStart,
    ToolCall,
    ToolResult,
)
from common.telemetry import take_telemetry, traces_wanted
from tests.e2e.otlp_receiver import Received, ReceivedSpan, otlp_receiver

REPO = Path(__file__).resolve().parents[2]
MODEL_TEXT = "IGNORE-PREVIOUS-INSTRUCTIONS"
"""What the model wrote (a prompt, a tool's input and output): it must reach no span."""


def one(received: Received, name: str) -> ReceivedSpan:
    [span] = [span for span in received.spans if span.name == name]
    return span


def run_events() -> None:
    """A run in brief: a phase with a session and its tool calls, a gate, a checkpoint."""
    start = utc_now() - timedelta(minutes=5)
    with spans.phase("coding", [3]):
        spans.event(
            SessionStart(
                at=start,
                session=1,
                label="coding #3 (session 1)",
                kind="coding",
                builtin_tools=["Bash"],
                harness_tools=[],
                expected_issue=3,
                system_prompt=MODEL_TEXT,
                prompt=MODEL_TEXT,
                project_dir="/p",
            )
        )
        spans.event(
            ToolCall(at=start + timedelta(seconds=1), session=1, id="t1", name="Bash", input={})
        )
        spans.event(
            ToolResult(
                at=start + timedelta(seconds=3),
                session=1,
                id="t1",
                is_error=True,
                preview="",
                chars=0,
            )
        )
        spans.event(
            ToolCall(
                at=start + timedelta(seconds=4),
                session=1,
                id="t2",
                name=f"{MODEL_TEXT} {{evil}}",
                input={"command": MODEL_TEXT},
            )
        )
        spans.event(
            SessionEnd(
                at=start + timedelta(seconds=10),
                session=1,
                label="coding #3 (session 1)",
                turns=4,
                cost_usd=0.5,
                input_tokens=1000,
                output_tokens=200,
                duration_ms=10_000,
            )
        )
        spans.event(
            GateRun(
                at=start + timedelta(seconds=12),
                command="pytest",
                exit_code=1,
                summary="",
                duration_s=2,
            )
        )
        spans.checkpoint_issue("issue_closure-3", 3)
        spans.event(
            CheckpointOpened(
                at=start + timedelta(seconds=13), id="issue_closure-3", kind="issue_closure"
            )
        )
        spans.event(
            DecisionMade(
                at=start + timedelta(seconds=73),
                checkpoint="issue_closure-3",
                approved=True,
                by="cli:someone",
                reason=MODEL_TEXT,
            )
        )
    spans.run_ended("done", Spend(tokens_in=1000, tokens_out=200, cost_usd=0.5, sessions=1))


def test_every_kind_of_span_reaches_the_collector_with_the_harness_facts() -> None:
    logged: list[str] = []
    with otlp_receiver() as (url, received):
        settings = {"OTEL_EXPORTER_OTLP_ENDPOINT": url, "OTEL_RESOURCE_ATTRIBUTES": "test=spans"}
        with spans.exporting(settings, "agent_9", logged.append):
            run_events()
        assert spans._sink is None

    run, phase = one(received, "run"), one(received, "phase coding")
    session, gate = one(received, "session coding"), one(received, "gate")
    bash, invalid = one(received, "tool Bash"), one(received, "tool invalid")
    checkpoint = one(received, "checkpoint issue_closure")
    assert logged == [f"OpenTelemetry: spans exported to {url}/v1/traces"]
    assert received.paths and set(received.paths) == {"/v1/traces"}
    assert {span.trace_id for span in received.spans} == {run.trace_id}
    assert run.parent_span_id == b""
    assert phase.parent_span_id == run.span_id
    assert (
        session.parent_span_id == gate.parent_span_id == checkpoint.parent_span_id == phase.span_id
    )
    assert bash.parent_span_id == invalid.parent_span_id == session.span_id
    assert run.resource["service.name"] == "coding-harness" and run.resource["test"] == "spans"
    assert run.attributes["harness.outcome"] == "done"
    assert run.attributes["harness.cost_usd"] == 0.5
    assert phase.attributes["harness.issue"] == 3
    assert session.attributes["harness.issue"] == 3
    assert session.attributes["harness.tokens.input"] == 1000
    assert session.attributes["harness.cost_usd"] == 0.5
    assert session.end_ns - session.start_ns == 10 * 10**9
    assert bash.error and bash.end_ns - bash.start_ns == 2 * 10**9
    assert invalid.end_ns == session.end_ns  # never answered: ended with its session
    assert gate.error and gate.attributes["harness.gate.exit_code"] == 1
    assert gate.attributes["harness.issue"] == 3
    assert gate.end_ns - gate.start_ns == 2 * 10**9
    assert checkpoint.attributes["harness.checkpoint"] == "issue_closure-3"
    assert checkpoint.attributes["harness.issue"] == 3
    assert checkpoint.attributes["harness.decision.by"] == "cli"
    assert checkpoint.end_ns - checkpoint.start_ns == 60 * 10**9
    shown = repr([(span.name, span.attributes) for span in received.spans])
    assert MODEL_TEXT not in shown and "someone" not in shown


def test_spans_left_open_by_a_stop_are_ended_and_exported() -> None:
    with otlp_receiver() as (url, received):
        settings = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{url}/v1/traces"}
        with (
            pytest.raises(KeyboardInterrupt),
            spans.exporting(settings, "a", lambda _line: None),
            spans.phase("coding", [1, 2]),
        ):
            spans.event(CheckpointOpened(id="merge_conflict-1", kind="merge_conflict"))
            raise KeyboardInterrupt

    phase = one(received, "phase coding")
    assert phase.error and phase.attributes["harness.issues"] == [1, 2]
    assert {span.name for span in received.spans} == {
        "run",
        "phase coding",
        "checkpoint merge_conflict",
    }


@pytest.mark.parametrize(
    ("settings", "wanted"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "x"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": " "}, False),
    ],
)
def test_traces_are_wanted_only_with_an_endpoint(settings: dict[str, str], wanted: bool) -> None:
    assert traces_wanted(settings) is wanted


def test_without_an_endpoint_the_sdk_is_never_imported() -> None:
    code = (
        "import sys; from agent.process.main import main; from agent.core.trace import spans\n"
        "with spans.exporting({'OTEL_SERVICE_NAME': 'x'}, 'a', print):\n"
        "    spans.event(None); spans.run_ended('done', None)\n"
        "loaded = [m for m in sys.modules if m.startswith(('opentelemetry.sdk', "
        "'opentelemetry.exporter', 'opentelemetry.proto', 'agent.core.trace.otel_spans'))]\n"
        "sys.exit(str(loaded) if loaded else 0)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=False
    )

    assert done.returncode == 0, done.stderr


def test_otel_settings_leave_the_agent_and_never_reach_a_session() -> None:
    received = {"GITLAB_TOKEN": "t", "OTEL_EXPORTER_OTLP_HEADERS": "a=b"}
    environ = {"PATH": "/bin", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "HOME": "/h"}

    assert take_telemetry(received) == {"OTEL_EXPORTER_OTLP_HEADERS": "a=b"}
    assert received == {"GITLAB_TOKEN": "t"}
    assert not any(name.startswith("OTEL_") for name in session_environment(environ))


def test_settings_the_sdk_refuses_leave_the_run_untraced_with_one_line() -> None:
    logged: list[str] = []
    ran = False
    settings = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
        "OTEL_BSP_MAX_QUEUE_SIZE": "-1",
    }

    with spans.exporting(settings, "a", logged.append):
        assert spans._sink is None
        ran = True

    assert ran
    assert logged == ["OpenTelemetry tracing is off: max_queue_size must be a positive integer."]


class FailingSink:
    """A sink whose every call fails, as a broken exporter would."""

    def __init__(self) -> None:
        self.calls = 0

    def event(self, event: object) -> None:
        self.calls += 1
        raise RuntimeError("exporter broke")

    def phase_started(self, phase: str, issues: list[int]) -> None:
        self.calls += 1
        raise RuntimeError("exporter broke")


def test_a_failing_sink_is_dropped_with_one_line_and_the_run_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    logged: list[str] = []
    sink = FailingSink()
    monkeypatch.setattr(spans, "_sink", sink)
    monkeypatch.setattr(spans, "_log", logged.append)

    with spans.phase("coding", [1]):
        spans.event(CheckpointOpened(id="x-1", kind="issue_closure"))
    spans.run_ended("done", Spend())

    assert sink.calls == 1 and spans._sink is None
    assert logged == ["OpenTelemetry tracing stopped: RuntimeError: exporter broke"]


def test_a_collector_that_never_answers_costs_the_agents_end_the_bound_then_one_line() -> None:
    """The SDK's flush ignores its timeout and retries for up to 10 s; the agent's end
    waits ``FLUSH_TIMEOUT_S`` for it, then says the last spans are dropped."""
    from agent.core.trace.otel_spans import FLUSH_TIMEOUT_S

    with socket.socket() as closed:  # a port nothing listens on: every export is refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    logged: list[str] = []
    endpoint = f"http://127.0.0.1:{port}/v1/traces"
    with spans.exporting({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint}, "a", logged.append):
        spans.run_ended("done", Spend())

    assert logged == [
        f"OpenTelemetry: spans exported to {endpoint}",
        f"OpenTelemetry: {endpoint} did not take the last spans within "
        f"{FLUSH_TIMEOUT_S:g} s; they are dropped",
    ]


def test_a_live_collector_takes_the_last_spans_in_time() -> None:
    with otlp_receiver() as (url, received):
        logged: list[str] = []
        settings = {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{url}/v1/traces"}
        with spans.exporting(settings, "a", logged.append):
            spans.run_ended("done", Spend())
    assert [span.name for span in received.spans] == ["run"]
    assert logged == [f"OpenTelemetry: spans exported to {url}/v1/traces"]

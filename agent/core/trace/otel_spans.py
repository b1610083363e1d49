"""OpenTelemetry spans from the agent's trace events, exported over OTLP/HTTP.

Imported only when tracing was asked for (:func:`agent.core.trace.spans.exporting`): this
module loads the SDK. One span for the run; under it one per phase; under a phase its
sessions (a session's tool calls under it), its gate runs and its checkpoint waits.
Times are the trace events' own, so a span lasts what the trace says it lasted.

The attributes are the harness's facts: the agent's name, issue numbers, checkpoint ids
and types, tokens, cost, exit codes. Nothing the model wrote goes into a span: no tool
input or output, no issue title, no command; a tool name the model made up is shown
as ``invalid``.

The SDK reads the standard ``OTEL_*`` variables (endpoint, headers, timeout, sampler,
``OTEL_BSP_*``, ``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``…) when its parts
are made; the agent's environment no longer has them (they came through its secrets
pipe and never reach a session), so they are set in it only while the parts are made.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Span, StatusCode, set_span_in_context

from common.environment import environment_for_block
from common.schemas.spend import Spend
from common.schemas.trace import (
    CheckpointOpened,
    DecisionMade,
    GateRun,
    SessionEnd,
    SessionStart,
    ToolCall,
    ToolResult,
    TraceEvent,
)

SERVICE_NAME = "coding-harness"
FLUSH_TIMEOUT_S = 3.0
"""How long the agent's end waits for the last spans to leave: an unreachable collector
must not hold a finished agent for long (the SDK's own flush ignores its timeout and
retries for up to ``OTEL_EXPORTER_OTLP_TIMEOUT``, 10 s by default: 6.9 s measured)."""
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.:-]{1,100}")

Attributes = dict[str, Any]


class OtelSpans:
    """A :class:`~agent.core.trace.spans.SpanSink` that builds spans with the OpenTelemetry SDK."""

    def __init__(self, settings: Mapping[str, str], agent: str) -> None:
        """Make the exporter, the batch processor and the run's span from ``settings``."""
        attributes: Attributes = {"harness.agent": agent}
        if "OTEL_SERVICE_NAME" not in settings:
            attributes["service.name"] = SERVICE_NAME
        with environment_for_block(settings):
            exporter = OTLPSpanExporter()
            # Shut down by close() alone, within its bound; never again at the interpreter's
            # exit, where a dead collector would hold the process for the SDK's timeout.
            self._provider = TracerProvider(
                resource=Resource.create(attributes), shutdown_on_exit=False
            )
            self._provider.add_span_processor(BatchSpanProcessor(exporter))
        self.endpoint = _endpoint(settings)
        self._agent = agent
        self._tracer = self._provider.get_tracer(SERVICE_NAME)
        self._lock = threading.Lock()
        self._run: Span | None = self._tracer.start_span("run", attributes=self._base())
        self._phase: Span | None = None
        self._phase_issues: list[int] = []
        self._sessions: dict[int, Span] = {}
        self._tools: dict[str, tuple[Span, int | None]] = {}
        self._checkpoints: dict[str, Span] = {}
        self._checkpoint_issues: dict[str, int | None] = {}

    # --- the sink ---------------------------------------------------------------------

    def event(self, event: TraceEvent) -> None:
        with self._lock:
            match event:
                case SessionStart():
                    self._session_started(event)
                case SessionEnd():
                    self._session_ended(event)
                case ToolCall():
                    self._tool_called(event)
                case ToolResult():
                    self._tool_answered(event)
                case GateRun():
                    self._gate(event)
                case CheckpointOpened():
                    self._checkpoint_opened(event)
                case DecisionMade():
                    self._decided(event)
                case _:
                    pass  # model requests, policy decisions, commits: in the trace alone

    def checkpoint_issue(self, checkpoint_id: str, issue: int | None) -> None:
        with self._lock:
            self._checkpoint_issues[checkpoint_id] = issue

    def phase_started(self, phase: str, issues: list[int]) -> None:
        with self._lock:
            self._phase_issues = list(issues)
            attributes = {**self._base(), "harness.phase": phase, **_issues(issues)}
            self._phase = self._tracer.start_span(
                f"phase {phase}", context=self._context(self._run), attributes=attributes
            )

    def phase_ended(self, phase: str, error: str | None) -> None:
        with self._lock:
            span, self._phase = self._phase, None
            if span is None:
                return
            if error is not None:
                span.set_status(StatusCode.ERROR, error[:200])
            span.end()

    def run_ended(self, outcome: str, spend: Spend) -> None:
        with self._lock:
            run, self._run = self._run, None
            if run is None:
                return
            run.set_attributes({"harness.outcome": outcome, **_spend(spend)})
            if outcome == "failed":
                run.set_status(StatusCode.ERROR, "the run failed")
            run.end()

    def close(self) -> bool:
        """End what is still open (a kill, a stop), then export what is left and shut the
        exporter down, waiting at most :data:`FLUSH_TIMEOUT_S`.

        Returns:
            Whether the collector took the last spans in time. If not, the exporter's
            thread is left to the process's end (it is a daemon thread): the spans it
            still holds are lost, the agent is not held.
        """
        with self._lock:
            open_spans = [
                *(span for span, _ in self._tools.values()),
                *self._sessions.values(),
                *self._checkpoints.values(),
                *(span for span in (self._phase, self._run) if span is not None),
            ]
            self._tools.clear()
            self._sessions.clear()
            self._checkpoints.clear()
            self._phase = self._run = None
        for span in open_spans:
            span.end()
        shutdown = threading.Thread(target=self._provider.shutdown, name="otel-end", daemon=True)
        shutdown.start()
        shutdown.join(FLUSH_TIMEOUT_S)
        return not shutdown.is_alive()

    # --- events -----------------------------------------------------------------------

    def _session_started(self, event: SessionStart) -> None:
        attributes = {
            **self._base(),
            "harness.session": event.session if event.session is not None else 0,
            "harness.session.kind": event.kind or "session",
            **_issues([event.expected_issue] if event.expected_issue is not None else []),
        }
        span = self._tracer.start_span(
            f"session {event.kind or 'session'}",
            context=self._context(self._parent()),
            attributes=attributes,
            start_time=_ns(event.at),
        )
        if event.session is not None:
            self._sessions[event.session] = span

    def _session_ended(self, event: SessionEnd) -> None:
        span = self._sessions.pop(event.session, None) if event.session is not None else None
        if span is None:
            return
        for tool_id, (tool, session) in list(self._tools.items()):
            if session == event.session:  # a call the session ended without an answer to
                tool.end(end_time=_ns(event.at))
                del self._tools[tool_id]
        span.set_attributes(
            {
                "harness.turns": event.turns,
                "harness.denials": event.denials,
                **_tokens(
                    event.input_tokens,
                    event.output_tokens,
                    event.cache_read_tokens,
                    event.cache_creation_tokens,
                ),
                **({"harness.cost_usd": event.cost_usd} if event.cost_usd is not None else {}),
            }
        )
        if event.error is not None:
            span.set_status(StatusCode.ERROR, event.error[:200])
        span.end(end_time=_ns(event.at))

    def _tool_called(self, event: ToolCall) -> None:
        name = event.name if _TOOL_NAME.fullmatch(event.name) else "invalid"
        parent = self._sessions.get(event.session) if event.session is not None else None
        span = self._tracer.start_span(
            f"tool {name}",
            context=self._context(parent or self._parent()),
            attributes={**self._base(), "harness.tool": name},
            start_time=_ns(event.at),
        )
        self._tools[event.id] = (span, event.session)

    def _tool_answered(self, event: ToolResult) -> None:
        found = self._tools.pop(event.id, None)
        if found is None:
            return
        span, _ = found
        span.set_attribute("harness.tool.error", event.is_error)
        if event.is_error:
            span.set_status(StatusCode.ERROR)
        span.end(end_time=_ns(event.at))

    def _gate(self, event: GateRun) -> None:
        ended = _ns(event.at)
        started = _ns(event.at - timedelta(seconds=max(event.duration_s, 0.0)))
        attributes = {
            **self._base(),
            "harness.gate.exit_code": event.exit_code,
            "harness.gate.passed": event.exit_code == 0,
            "harness.gate.reused": event.reused,
            "harness.gate.duration_s": event.duration_s,
            **_issues(self._phase_issues),
        }
        span = self._tracer.start_span(
            "gate", context=self._context(self._parent()), attributes=attributes, start_time=started
        )
        if event.exit_code != 0 and not event.reused:
            span.set_status(StatusCode.ERROR, f"exit {event.exit_code}")
        span.end(end_time=ended)

    def _checkpoint_opened(self, event: CheckpointOpened) -> None:
        self._checkpoints[event.id] = self._checkpoint_span(event.id, event.kind, event.at)

    def _decided(self, event: DecisionMade) -> None:
        span = self._checkpoints.pop(event.checkpoint, None)
        if span is None:  # opened before a restart: its wait is the checkpoint log's
            span = self._checkpoint_span(event.checkpoint, None, event.at)
        span.set_attributes(
            {"harness.decision.approved": event.approved, "harness.decision.by": _by(event.by)}
        )
        span.end(end_time=_ns(event.at))

    def _checkpoint_span(self, checkpoint_id: str, kind: str | None, at: datetime) -> Span:
        kind = kind or checkpoint_id.rsplit("-", 1)[0]
        issue = self._checkpoint_issues.pop(checkpoint_id, None)
        attributes = {
            **self._base(),
            "harness.checkpoint": checkpoint_id,
            "harness.checkpoint.type": kind,
            **_issues([issue] if issue is not None else []),
        }
        return self._tracer.start_span(
            f"checkpoint {kind}",
            context=self._context(self._parent()),
            attributes=attributes,
            start_time=_ns(at),
        )

    # --- helpers ----------------------------------------------------------------------

    def _base(self) -> Attributes:
        return {"harness.agent": self._agent}

    def _parent(self) -> Span | None:
        return self._phase or self._run

    @staticmethod
    def _context(parent: Span | None) -> Any:
        return set_span_in_context(parent) if parent is not None else None


def _endpoint(settings: Mapping[str, str]) -> str:
    """Where the spans go, for the agent's log (as the exporter resolves it)."""
    traces = settings.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if traces:
        return traces
    return settings.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip().rstrip("/") + "/v1/traces"


def _ns(at: datetime) -> int:
    return int(at.timestamp() * 1_000_000_000)


def _issues(issues: list[int]) -> Attributes:
    """``harness.issue`` for one issue; ``harness.issues`` for several at once."""
    if len(issues) == 1:
        return {"harness.issue": issues[0]}
    return {"harness.issues": issues} if issues else {}


def _tokens(inputs: int, outputs: int, cache_read: int, cache_creation: int) -> Attributes:
    return {
        "harness.tokens.input": inputs,
        "harness.tokens.output": outputs,
        "harness.tokens.cache_read": cache_read,
        "harness.tokens.cache_creation": cache_creation,
    }


def _spend(spend: Spend) -> Attributes:
    return {
        **_tokens(spend.tokens_in, spend.tokens_out, spend.cache_read, spend.cache_creation),
        "harness.cost_usd": spend.cost_usd,
        "harness.sessions": spend.sessions,
    }


def _by(decided_by: str) -> str:
    """Who decided, as a class: ``cli``, ``tui``, ``auto-accept``, ``timeout``."""
    return decided_by.split(":", 1)[0]

"""Where the agent's spans go: nowhere, unless OpenTelemetry tracing was asked for.

The trace (:mod:`agent.core.trace.trace`) already records every session, tool call, gate run
and checkpoint; a span sink turns those same events into OpenTelemetry spans, and the
phase machine (:mod:`agent.core.runner`) adds a span per phase. One record, two views.

Without ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or its traces form) in the settings the agent
was started with, no sink is installed: the OpenTelemetry SDK is never imported, and
each hook below is one comparison with ``None``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol

from common.schemas.spend import Spend
from common.schemas.trace import TraceEvent
from common.telemetry import traces_wanted


class SpanSink(Protocol):
    """Receives what the agent does, as it happens."""

    def event(self, event: TraceEvent) -> None:
        """A trace event, its session number filled in."""

    def checkpoint_issue(self, checkpoint_id: str, issue: int | None) -> None:
        """The issue a checkpoint about to open is about (``None``: the run as a whole)."""

    def phase_started(self, phase: str, issues: list[int]) -> None:
        """A phase handler starts, with the issues in progress."""

    def phase_ended(self, phase: str, error: str | None) -> None:
        """It ended (``error``: what stopped it)."""

    def run_ended(self, outcome: str, spend: Spend) -> None:
        """The agent's run ended, with the run's whole spend."""

    def close(self) -> bool:
        """Export what is left and stop; whether it all left in time."""


_sink: SpanSink | None = None
_log: Callable[[str], None] = print


def event(traced: TraceEvent) -> None:
    """Hand a trace event to the sink, if there is one."""
    if _sink is not None:
        _guarded(_sink.event, traced)


def checkpoint_issue(checkpoint_id: str, issue: int | None) -> None:
    if _sink is not None:
        _guarded(_sink.checkpoint_issue, checkpoint_id, issue)


@contextlib.contextmanager
def phase(name: str, issues: list[int]) -> Iterator[None]:
    """A span around one phase handler's run."""
    sink = _sink
    if sink is None:
        yield
        return
    _guarded(sink.phase_started, name, issues)
    try:
        yield
    except BaseException as e:
        if _sink is sink:  # not dropped meanwhile
            _guarded(sink.phase_ended, name, str(e) or type(e).__name__)
        raise
    if _sink is sink:
        _guarded(sink.phase_ended, name, None)


def run_ended(outcome: str, spend: Spend) -> None:
    if _sink is not None:
        _guarded(_sink.run_ended, outcome, spend)


def _guarded(call: Callable[..., None], *args: object) -> None:
    """``call(*args)``; a sink that fails is dropped with one line: the run goes on
    untraced (a broken exporter must never stop an agent)."""
    global _sink
    try:
        call(*args)
    except Exception as e:
        if _sink is not None:
            _sink = None
            _log(f"OpenTelemetry tracing stopped: {type(e).__name__}: {e}")


@contextlib.contextmanager
def exporting(
    settings: Mapping[str, str], agent: str, log: Callable[[str], None]
) -> Iterator[None]:
    """Spans of this block exported over OTLP/HTTP when ``settings`` ask for it.

    The SDK is imported here and only then; what is left is flushed when the block ends.
    An exporter that cannot be set up (a bad variable) is logged and the run goes on
    untraced: tracing is for operators, never a reason to stop an agent.
    """
    global _sink, _log
    if not traces_wanted(settings):
        yield
        return
    from agent.core.trace.otel_spans import FLUSH_TIMEOUT_S, OtelSpans

    try:
        sink = OtelSpans(settings, agent)
    except Exception as e:  # the SDK's own validation: one line, no traceback
        log(f"OpenTelemetry tracing is off: {e}")
        yield
        return
    log(f"OpenTelemetry: spans exported to {sink.endpoint}")
    _sink, _log = sink, log
    try:
        yield
    finally:
        _sink, _log = None, print
        try:
            if not sink.close():
                log(
                    f"OpenTelemetry: {sink.endpoint} did not take the last spans within "
                    f"{FLUSH_TIMEOUT_S:g} s; they are dropped"
                )
        except Exception as e:
            log(f"OpenTelemetry: the last spans were not exported: {type(e).__name__}: {e}")

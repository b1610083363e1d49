"""``harness trace``: an agent's trace as readable lines, with totals.

Pure rendering: one line per event (tool results and allows folded into their
call's line), each session headed by its label and closed by its figures, and
the totals of the whole trace (or of one session) at the end. Sessions that ran
at the same time (parallel issues) interleave their lines: there, and for a line
that comes after its session's end, each line names its session (``[s2]``). Each line is escaped
(:func:`~common.untrusted_text.printable_line`): tool inputs, commit subjects, gate
summaries and reasons quote what the model wrote, and stay on their one line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from common.schemas.trace import (
    CheckpointOpened,
    CommitMade,
    DecisionMade,
    GateRun,
    ModelRequest,
    PolicyDecision,
    ScreenshotTaken,
    SessionEnd,
    SessionStart,
    ToolCall,
    ToolResult,
    TraceEvent,
)
from common.untrusted_text import printable_line

_WIDTH = 100


@dataclass
class Totals:
    """What a trace adds up to."""

    sessions: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    duration_ms: int = 0
    tool_calls: int = 0
    denials: int = 0


def totals(events: Sequence[TraceEvent]) -> Totals:
    """Sessions, requests, tokens (every billed input kind), cost, session time, tools."""
    sums = Totals()
    for event in events:
        if isinstance(event, SessionEnd):
            sums.sessions += 1
            sums.input_tokens += event.input_tokens
            sums.output_tokens += event.output_tokens
            sums.cost_usd += event.cost_usd or 0.0
            sums.duration_ms += event.duration_ms
        elif isinstance(event, ModelRequest):
            sums.requests += 1
        elif isinstance(event, ToolCall):
            sums.tool_calls += 1
        elif isinstance(event, PolicyDecision) and event.decision == "deny":
            sums.denials += 1
    return sums


def select(events: Sequence[TraceEvent], session: int | None) -> list[TraceEvent]:
    """All events, or those of one session, each decision without its MAC."""
    chosen = list(events) if session is None else [e for e in events if e.session == session]
    return [without_mac(event) for event in chosen]


def without_mac(event: TraceEvent) -> TraceEvent:
    """``event``, a decision's choice without the ``mac`` a trace of an older harness kept
    in it (a signature is no reading for a person, and the agent checks it elsewhere)."""
    if not isinstance(event, DecisionMade) or event.choice is None:
        return event
    try:
        choice = json.loads(event.choice)
    except ValueError:
        return event
    if not isinstance(choice, dict) or "mac" not in choice:
        return event
    del choice["mac"]
    shown = json.dumps(choice, sort_keys=True) if choice else None
    return event.model_copy(update={"choice": shown})


def _short(text: str, width: int = _WIDTH) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _kb(size: int) -> str:
    return f"{size / 1000:.1f} KB"


def ambiguous(events: Sequence[TraceEvent]) -> list[bool]:
    """For each event, whether its line must name its session: it belongs to one, and
    another session is running at that point, or its own is not (it came after the
    session's end, or without its start). One session at a time: never."""
    running: set[int] = set()
    marks: list[bool] = []
    for event in events:
        number = event.session
        if isinstance(event, SessionStart) and number is not None:
            running.add(number)
        marks.append(number is not None and running != {number})
        if isinstance(event, SessionEnd) and number is not None:
            running.discard(number)
    return marks


def render(events: Sequence[TraceEvent]) -> str:
    """The events as text lines (no decision's MAC), then their totals."""
    events = [without_mac(event) for event in events]
    results = {e.id: e for e in events if isinstance(e, ToolResult)}
    lines: list[str] = []
    for event, named in zip(events, ambiguous(events), strict=True):
        line = _line(event, results, named)
        if line is not None:
            lines.append(printable_line(line))
    sums = totals(events)
    lines.append(
        f"total: {sums.sessions} session(s), {sums.requests} request(s), "
        f"{sums.tool_calls} tool call(s), {sums.denials} denied, "
        f"{sums.input_tokens} in / {sums.output_tokens} out tokens, "
        f"${sums.cost_usd:.4f}, {sums.duration_ms / 1000:.1f} s in sessions"
    )
    return "\n".join(lines) + "\n"


def _pad(event: TraceEvent, named: bool) -> str:
    """What starts an event's text: its session's mark where it is ambiguous, else an
    indent under its session's heading (none between sessions)."""
    if event.session is None:
        return ""
    return f"[s{event.session}] " if named else "  "


def _line(event: TraceEvent, results: dict[str, ToolResult], named: bool = False) -> str | None:
    stamp = event.at.strftime("%H:%M:%S")
    pad = _pad(event, named)
    if isinstance(event, SessionStart):
        head = event.head[:12] if event.head else "no commit"
        kind = f" [{event.kind}]" if event.kind else ""
        return f"{stamp} ── session {event.session}: {event.label}{kind} at {head}"
    if isinstance(event, SessionEnd):
        cost = f"${event.cost_usd:.4f}" if event.cost_usd is not None else "n/a"
        how = f"FAILED: {_short(event.error, 80)}" if event.error else "ended"
        touched = ", ".join(event.touched) or "no files"
        return (
            f"{stamp} ── session {event.session} {how}: {event.turns} turns, "
            f"{event.input_tokens} in / {event.output_tokens} out tokens, {cost}, "
            f"{event.duration_ms} ms; wrote {touched}; reported {', '.join(event.reports) or '-'}"
        )
    if isinstance(event, ModelRequest):
        return (
            f"{stamp} {pad}request {event.index} (step {event.step}): {_kb(event.request_bytes)} "
            f"(system {_kb(event.system_bytes)}, messages {_kb(event.messages_bytes)}, "
            f"tools {_kb(event.tools_bytes)}) → {event.status} {event.stop_reason or '-'}, "
            f"{event.input_tokens} in / {event.output_tokens} out, {event.duration_ms} ms"
        )
    if isinstance(event, ToolCall):
        result = results.get(event.id)
        outcome = "…" if result is None else ("error" if result.is_error else "ok")
        detail = f": {_short(result.preview, 60)}" if result is not None and result.is_error else ""
        called = _short(json.dumps(event.input), 70)
        return f"{stamp} {pad}tool {event.name} {called} → {outcome}{detail}"
    if isinstance(event, PolicyDecision):
        return (
            None
            if event.decision == "allow"
            else f"{stamp} {pad}policy denied {event.tool}: {event.reason}"
        )
    if isinstance(event, GateRun):
        again = " (reused)" if event.reused else ""
        return (
            f"{stamp} {pad}gate `{event.command}` → exit {event.exit_code}: {event.summary}{again}"
        )
    if isinstance(event, CommitMade):
        return f"{stamp} {pad}commit {event.sha[:12]} {event.subject} ({event.files} file(s))"
    if isinstance(event, ScreenshotTaken):
        size = f"{event.width}x{event.height}"
        return f"{stamp} {pad}screenshot of issue #{event.issue} ({size}): {event.path}"
    if isinstance(event, CheckpointOpened):
        return f"{stamp} {pad}checkpoint {event.id}"
    if isinstance(event, DecisionMade):
        verdict = "approved" if event.approved else "rejected"
        choice = f" choice {event.choice}" if event.choice else ""
        why = f": {event.reason}" if event.reason else ""
        return f"{stamp} {pad}decision {event.checkpoint} {verdict} by {event.by}{choice}{why}"
    return None  # ToolResult: folded into its call's line

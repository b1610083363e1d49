"""What differs between a recorded session and its replay: the harness's side only.

The model's answers are the recording's by construction; what can change is what
the harness does with them and around them: the tools it offers, the system prompt
(its digest), the policy's decisions, which tool calls fail, what the harness
tools answer, the reports it accepts, the files the session wrote, and requests
the recording has no answer for. Bash output is compared by outcome only (its
text holds timings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.model.trace_playbook import rewrite
from common.schemas.trace import (
    ModelRequest,
    PolicyDecision,
    SessionEnd,
    SessionStart,
    ToolCall,
    ToolResult,
    TraceEvent,
)

PROJECT = "<project>"
_TEXT_COMPARED = ("Read", "Glob", "Grep", "Write", "Edit")
"""Tools whose result text is compared (besides the harness's own MCP tools)."""


@dataclass
class SessionRecord:
    """One session's events, split by kind."""

    start: SessionStart
    requests: list[ModelRequest]
    calls: list[ToolCall]
    results: list[ToolResult]
    policy: list[PolicyDecision]
    end: SessionEnd | None


def session_record(events: Sequence[TraceEvent], number: int) -> SessionRecord | None:
    """Session ``number``'s events, or ``None`` when the trace has no such session."""
    mine = [e for e in events if e.session == number]
    start = next((e for e in mine if isinstance(e, SessionStart)), None)
    if start is None:
        return None
    return SessionRecord(
        start=start,
        requests=[e for e in mine if isinstance(e, ModelRequest)],
        calls=[e for e in mine if isinstance(e, ToolCall)],
        results=[e for e in mine if isinstance(e, ToolResult)],
        policy=[e for e in mine if isinstance(e, PolicyDecision)],
        end=next((e for e in mine if isinstance(e, SessionEnd)), None),
    )


def _norm(value: Any, project: str) -> Any:
    return rewrite(value, {project.rstrip("/"): PROJECT})


def _results(record: SessionRecord) -> list[tuple[str, bool, str]]:
    names = {call.id: call.name for call in record.calls}
    out = []
    for result in record.results:
        name = names.get(result.id, "?")
        shown = name.startswith("mcp__") or name in _TEXT_COMPARED
        text = _norm(result.preview, record.start.project_dir) if shown else ""
        out.append((name, result.is_error, text))
    return out


def _requests(record: SessionRecord) -> dict[int, tuple[list[str], str, int]]:
    return {
        r.step: (r.tool_names, r.system_sha, r.message_count)
        for r in record.requests
        if r.has_tools and r.status == 200
    }


def differences(
    recorded: SessionRecord, replayed: SessionRecord, missing: Sequence[int]
) -> list[str]:
    """Every difference, one line each; empty when the harness behaved the same."""
    found = [f"request with {step} assistant turn(s) has no recorded answer" for step in missing]
    rec_p, rep_p = recorded.start.project_dir, replayed.start.project_dir
    pairs: list[tuple[str, Any, Any]] = [
        ("tool surface", _surface(recorded.start), _surface(replayed.start)),
        (
            "tool calls",
            [(c.name, _norm(c.input, rec_p)) for c in recorded.calls],
            [(c.name, _norm(c.input, rep_p)) for c in replayed.calls],
        ),
        (
            "policy decisions",
            [(p.tool, p.decision, _norm(p.reason, rec_p)) for p in recorded.policy],
            [(p.tool, p.decision, _norm(p.reason, rep_p)) for p in replayed.policy],
        ),
    ]
    found += [_describe(what, a, b) for what, a, b in pairs if a != b]
    found += _list_diff("tool result", _results(recorded), _results(replayed))
    rec_req, rep_req = _requests(recorded), _requests(replayed)
    for step in sorted(set(rec_req) | set(rep_req)):
        a, b = rec_req.get(step), rep_req.get(step)
        if a is None or b is None:
            found.append(
                f"request at step {step}: recorded {a is not None}, replayed {b is not None}"
            )
            continue
        for label, x, y in zip(("tools offered", "system prompt", "messages"), a, b, strict=True):
            if x != y:
                found.append(f"request at step {step}: {label} {x!r} → {y!r}")
    found += _ends(recorded.end, replayed.end)
    return found


def _surface(start: SessionStart) -> tuple[list[str], list[str]]:
    return start.builtin_tools, start.harness_tools


def _describe(what: str, recorded: Any, replayed: Any) -> str:
    return f"{what}: recorded {recorded!r} → replayed {replayed!r}"


def _list_diff(what: str, recorded: list[Any], replayed: list[Any]) -> list[str]:
    out = []
    for index in range(max(len(recorded), len(replayed))):
        a = recorded[index] if index < len(recorded) else None
        b = replayed[index] if index < len(replayed) else None
        if a != b:
            out.append(f"{what} {index + 1}: recorded {a!r} → replayed {b!r}")
    return out


def _ends(recorded: SessionEnd | None, replayed: SessionEnd | None) -> list[str]:
    if recorded is None or replayed is None:
        return [] if recorded is replayed else [_describe("session end", recorded, replayed)]
    found = []
    for field in ("error", "turns", "touched", "reports"):
        a, b = getattr(recorded, field), getattr(replayed, field)
        if a != b:
            found.append(_describe(f"session {field}", a, b))
    return found

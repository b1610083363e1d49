"""The agent's trace: an append-only JSONL file of :mod:`common.schemas.trace` events.

One tracer per agent process, opened by :mod:`agent.cli` on the workspace's
``trace.jsonl``; the hook points (session, model proxy, hooks, gates, commits,
checkpoints) call :func:`emit` and need not be handed a tracer. With no tracer
open (unit tests, a replay's own run without one) :func:`emit` records nothing.

Each event is one line, written with one ``write`` and flushed, so a reader sees
whole lines; an agent killed mid-write leaves at most a torn last line, which
:func:`read_trace` skips with a warning. Sessions are numbered over the whole
file, so a resumed agent continues the count.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint
from common.schemas.gates import TestRun
from common.schemas.trace import (
    TRACE_EVENT,
    CheckpointOpened,
    CommitMade,
    DecisionMade,
    GateRun,
    PolicyDecision,
    TraceEvent,
)

logger = logging.getLogger(__name__)

TRACE_FILE = "trace.jsonl"
PREVIEW_CHARS = 2000
"""How much of a tool result the trace keeps."""
REDACTED = "[REDACTED]"
#: Token shapes that are secrets wherever they appear (GitLab PATs, Anthropic keys).
_TOKEN_SHAPES = re.compile(r"(glpat-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,})")
_MIN_SECRET = 6
"""Shorter configured values are not redacted (they would blank ordinary words)."""


def trace_path(files: WorkspaceFiles) -> Path:
    """Where an agent's trace lives: ``trace.jsonl`` in its workspace."""
    return files.root / TRACE_FILE


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with GitLab and Anthropic token shapes and every configured secret replaced.

    A minimal redaction of our own (no shared redaction helper exists yet): it knows
    the ``glpat-`` and ``sk-ant-`` shapes and the values the agent was given.
    """
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, REDACTED)
    return _TOKEN_SHAPES.sub(REDACTED, text)


def redact_value(value: Any, secrets: Iterable[str] = ()) -> Any:
    """Every string inside ``value`` (dicts and lists, recursively) redacted."""
    known = tuple(secrets)
    if isinstance(value, str):
        return redact(value, known)
    if isinstance(value, list):
        return [redact_value(item, known) for item in value]
    if isinstance(value, dict):
        return {key: redact_value(item, known) for key, item in value.items()}
    return value


class Tracer:
    """Appends events to one trace file; safe to call from threads and the event loop."""

    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        self.path = path
        self.secrets = tuple(s for s in secrets if s)
        self._lock = threading.Lock()
        self._sessions = count_sessions(path)
        self.session: int | None = None
        """The session running now (``None`` between sessions)."""
        self.requests = 0
        """Requests of the current session so far."""
        self._out: IO[str] | None = None

    def open(self) -> None:
        """Open for appending; a torn last line left by a kill is ended first, so the
        next event starts a line of its own."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._out = self.path.open("a", encoding="utf-8")
        if not _ends_with_newline(self.path):
            self._out.write("\n")
            self._out.flush()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    def start_session(self) -> int:
        """Number the session that starts now."""
        with self._lock:
            self._sessions += 1
            self.session = self._sessions
            self.requests = 0
            return self._sessions

    def end_session(self) -> None:
        self.session = None

    def next_request(self) -> int:
        """The index of the next model request within the current session."""
        with self._lock:
            self.requests += 1
            return self.requests

    def write(self, event: TraceEvent) -> None:
        """One line, flushed; the current session is filled in when the event has none."""
        if event.session is None and self.session is not None:
            event = event.model_copy(update={"session": self.session})
        line = event.model_dump_json() + "\n"
        with self._lock:
            if self._out is None:
                return
            self._out.write(line)
            self._out.flush()


def count_sessions(path: Path) -> int:
    """How many sessions ``path`` holds, from a plain scan: a resumed agent numbers on
    from there even when some line of the file is damaged."""
    if not path.exists():
        return 0
    marker = '"type":"session_start"'  # unescaped only as an event's own key
    with path.open(encoding="utf-8", errors="replace") as lines:
        return sum(1 for line in lines if marker in line)


def _ends_with_newline(path: Path) -> bool:
    """Whether the file is empty or ends a line (a kill may have left half a line)."""
    with path.open("rb") as data:
        if data.seek(0, 2) == 0:
            return True
        data.seek(-1, 2)
        return data.read(1) == b"\n"


_current: Tracer | None = None


def current() -> Tracer | None:
    """The tracer of this process, if one is open."""
    return _current


def emit(event: TraceEvent) -> None:
    """Record ``event`` in this process's trace; nothing when no trace is open.

    A trace that cannot be written must not stop the agent: the failure is logged.
    """
    tracer = _current
    if tracer is None:
        return
    try:
        tracer.write(event)
    except OSError as e:
        logger.warning("trace %s: cannot write an event: %s", tracer.path, e)


def policy(tool: str, reason: str | None) -> None:
    """Record the PreToolUse policy's answer: a deny with its reason, or an allow."""
    decision = "allow" if reason is None else "deny"
    emit(PolicyDecision(tool=tool, decision=decision, reason=reason))


def gate(run: TestRun, *, reused: bool = False) -> None:
    """Record a run of the test gate (or the reuse of the last one)."""
    emit(
        GateRun(
            command=run.command,
            exit_code=run.exit_code,
            summary=run.summary,
            duration_s=run.duration_s,
            reused=reused,
        )
    )


def commit(sha: str, message: str, files: int) -> None:
    """Record a commit the harness made."""
    emit(CommitMade(sha=sha, subject=message.splitlines()[0] if message else "", files=files))


def checkpoint(opened: Checkpoint) -> None:
    """Record a checkpoint opened, and its decision when it has one."""
    emit(CheckpointOpened(id=opened.id, kind=opened.type.value))


def decision(decided: Checkpoint) -> None:
    """Record the decision on a checkpoint; its extra fields (a choice) as JSON."""
    made = decided.decision
    if made is None:
        return
    extra = made.model_dump(mode="json", exclude={"approved", "reason", "decided_by", "decided_at"})
    chosen = {key: value for key, value in extra.items() if value not in (None, [], "")}
    emit(
        DecisionMade(
            checkpoint=decided.id,
            approved=made.approved,
            by=made.decided_by,
            choice=json.dumps(chosen, sort_keys=True) if chosen else None,
            reason=made.reason,
        )
    )


def secrets() -> tuple[str, ...]:
    """The configured secrets of the open trace (for redaction at the hook points)."""
    return _current.secrets if _current is not None else ()


@contextlib.contextmanager
def tracing(path: Path, secret_values: Iterable[str] = ()) -> Iterator[Tracer]:
    """Open ``path`` as this process's trace for the ``with`` block."""
    global _current
    tracer = Tracer(path, secret_values)
    tracer.open()
    previous, _current = _current, tracer
    try:
        yield tracer
    finally:
        _current = previous
        tracer.close()


def parse_lines(lines: list[str], source: str = "trace") -> list[TraceEvent]:
    """Parse trace lines; a torn line (not JSON: an agent killed mid-write, possibly
    resumed since) is skipped with a warning.

    Raises:
        ValueError: a line is JSON but not a trace event (the file is not a trace).
    """
    events: list[TraceEvent] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if _torn(line):
            logger.warning("%s:%d: skipping a torn line (%d characters)", source, number, len(line))
            continue
        try:
            events.append(TRACE_EVENT.validate_json(line))
        except ValidationError as e:
            raise ValueError(
                f"{source}:{number}: not a trace event ({e.errors()[0]['msg']})"
            ) from e
    return events


def _torn(line: str) -> bool:
    try:
        json.loads(line)
    except json.JSONDecodeError:
        return True
    return False


def read_trace(path: Path) -> list[TraceEvent]:
    """Every event in ``path``, in order; none when the file does not exist.

    Raises:
        ValueError: a line other than a torn last one is not a trace event.
    """
    if not path.exists():
        return []
    return parse_lines(path.read_text(encoding="utf-8").split("\n"), str(path))

"""The agent's trace: an append-only JSONL file of :mod:`common.schemas.trace` events.

One tracer per agent process, opened by :mod:`agent.process` on the workspace's
``trace.jsonl``; the hook points (session, model proxy, hooks, gates, commits,
checkpoints) call :func:`emit` and need not be handed a tracer. With no tracer
open (unit tests, a replay's own run without one) :func:`emit` records nothing.

Each event is one line, written with one ``write`` and flushed, so a reader sees
whole lines; an agent killed mid-write leaves at most a torn last line, which
:func:`read_trace` skips with a warning. Sessions are numbered over the whole
file, so a resumed agent continues the count.

Several sessions may run at once (parallel issues), so "the session running now"
is no fact of the process: each session is a :class:`TraceSession` handle with its
number and its own request count. The session's own task carries it (a context
variable set by :func:`within`, inherited by the tasks the session starts: the SDK's
hooks and tool handlers), and :func:`emit` fills it into events that have none; the
model proxy, whose connections are no session's tasks, is handed it with the
endpoint window a request came in by. An event emitted outside every session
(gates, commits, checkpoints) has none.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import json
import logging
import re
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from agent.core.trace import spans
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
    ScreenshotTaken,
    TraceEvent,
)
from common.workspace.checkpoint_issue import issue_of

logger = logging.getLogger(__name__)

TRACE_FILE = "trace.jsonl"
"""The trace's file name (:attr:`common.paths.WorkspaceFiles.trace`)."""
PREVIEW_CHARS = 2000
"""How much of a tool result the trace keeps."""
REDACTED = "[REDACTED]"
#: Token shapes that are secrets wherever they appear (GitLab PATs, Anthropic keys).
_TOKEN_SHAPES = re.compile(r"(glpat-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,})")
_MIN_SECRET = 6
"""Shorter configured values are not redacted (they would blank ordinary words)."""


def trace_path(files: WorkspaceFiles) -> Path:
    """Where an agent's trace lives: ``trace.jsonl`` in its workspace."""
    return files.trace


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


class TraceSession:
    """One session of the trace: its number and the count of its own model requests.

    A handle, not a state of the tracer: sessions that overlap each hold their own, and
    whatever records an event of a session is given (or inherits) that session's handle.
    """

    def __init__(self, number: int) -> None:
        self.number = number
        self._requests = itertools.count(1)
        self._lock = threading.Lock()

    def next_request(self) -> int:
        """The index of this session's next model request (1-based)."""
        with self._lock:
            return next(self._requests)

    def __repr__(self) -> str:
        return f"TraceSession({self.number})"


class Tracer:
    """Appends events to one trace file; safe to call from threads and the event loop."""

    def __init__(self, path: Path, secrets: Iterable[str] = ()) -> None:
        self.path = path
        self.secrets = tuple(s for s in secrets if s)
        self._lock = threading.Lock()
        self._sessions = count_sessions(path)
        self._open: dict[int, TraceSession] = {}
        """The sessions started and not ended yet, by number."""
        self._outside = itertools.count(1)
        """Numbers the model requests made outside every session (the endpoint probe)."""
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

    def start_session(self) -> TraceSession:
        """Number the session that starts now (other sessions may be running)."""
        with self._lock:
            self._sessions += 1
            session = TraceSession(self._sessions)
            self._open[session.number] = session
            return session

    def end_session(self, session: TraceSession) -> None:
        with self._lock:
            self._open.pop(session.number, None)

    @property
    def running(self) -> tuple[TraceSession, ...]:
        """The sessions started and not ended yet, oldest first."""
        with self._lock:
            return tuple(self._open.values())

    def sole_session(self) -> TraceSession | None:
        """The one session running, or ``None`` when none or several run.

        For a recorder that cannot tell which session an event belongs to (a model proxy
        without endpoint windows, which only ever serves one session at a time): with
        several sessions running it does not guess.
        """
        running = self.running
        return running[0] if len(running) == 1 else None

    def next_request(self, session: TraceSession | None) -> int:
        """The index of the next model request of ``session``; ``None``: of the requests
        made outside every session, counted apart."""
        if session is not None:
            return session.next_request()
        with self._lock:
            return next(self._outside)

    def write(self, event: TraceEvent, session: TraceSession | None = None) -> None:
        """One line, flushed; ``session``'s number is filled in when the event has none."""
        if event.session is None and session is not None:
            event = event.model_copy(update={"session": session.number})
        line = event.model_dump_json() + "\n"
        with self._lock:
            if self._out is None:
                return
            self._out.write(line)
            self._out.flush()
        spans.event(event)  # the same event as an OpenTelemetry span, when exported


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
_session: contextvars.ContextVar[TraceSession | None] = contextvars.ContextVar(
    "trace_session", default=None
)
"""The session whose task (or a task it started) runs now; ``None`` outside sessions."""


def current() -> Tracer | None:
    """The tracer of this process, if one is open."""
    return _current


def active_session() -> TraceSession | None:
    """The session of the running task, if it runs within one (:func:`within`)."""
    return _session.get()


@contextlib.contextmanager
def within(session: TraceSession) -> Iterator[TraceSession]:
    """Events emitted by this task in the block, and by the tasks it starts there, are
    ``session``'s; another task's sessions are untouched (each task has its own context)."""
    token = _session.set(session)
    try:
        yield session
    finally:
        _session.reset(token)


def emit(event: TraceEvent, session: TraceSession | None = None) -> None:
    """Record ``event`` in this process's trace; nothing when no trace is open.

    An event without a session gets ``session``, or else the running task's session
    (:func:`within`), or none. A trace that cannot be written must not stop the agent:
    the failure is logged.
    """
    tracer = _current
    if tracer is None:
        return
    try:
        tracer.write(event, session or _session.get())
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


def screenshot(issue: int, path: str, width: int, height: int) -> None:
    """Record a browser screenshot the harness took into the workspace."""
    emit(ScreenshotTaken(issue=issue, path=path, width=width, height=height))


def checkpoint(opened: Checkpoint) -> None:
    """Record a checkpoint opened, and its decision when it has one."""
    spans.checkpoint_issue(opened.id, issue_of(opened))
    emit(CheckpointOpened(id=opened.id, kind=opened.type.value))


def decision(decided: Checkpoint) -> None:
    """Record the decision on a checkpoint; its extra fields (a choice) as JSON.

    Not its MAC: a signature over the workspace's key tells a person reading the trace
    nothing, and the checkpoint log keeps it where the agent checks it.
    """
    made = decided.decision
    if made is None:
        return
    extra = made.model_dump(
        mode="json", exclude={"approved", "reason", "decided_by", "decided_at", "mac"}
    )
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

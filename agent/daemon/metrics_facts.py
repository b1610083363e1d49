"""What the metrics count, read from the files the harness already writes.

One source of truth: nothing is counted twice. The daemon's view of an agent
(:class:`~common.schemas.protocol.AgentInfo`: status, exit state, the checkpoint waiting,
the spend) comes with the agent; the rest is read from its workspace on each scrape:
the checkpoint log (how long each decision took), the trace (each session's time, each
gate run), the policy's counts, the GitLab mirror's request figures and the sandbox
layout's refusals.

A scrape every few seconds of twenty agents must stay cheap, so a :class:`FactsCache`
keeps what it parsed: a file whose inode, size and modification time are unchanged is
not parsed again (every write is atomic: a new inode), and the trace, which only
grows, is read on from where the last scrape stopped.

Only numbers, fixed classes and agent names leave this module: nothing the model
wrote (an issue title, a command, a reason) can become a label.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from common.atomic import read_model_or_none
from common.errors import StateFileError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import CheckpointLog
from common.schemas.gitlab_milestone import GitLabApiStats, GitLabMilestone
from common.schemas.policy_counts import PolicyCounts
from common.schemas.protocol import AgentInfo

ModelT = TypeVar("ModelT", bound=BaseModel)
log = logging.getLogger(__name__)

#: The trace events the metrics need, found by a plain substring before any JSON is parsed
#: (a model request's line may be large; it is never parsed here).
_SESSION_END = b'"type":"session_end"'
_GATE = b'"type":"gate"'


@dataclass(frozen=True)
class GateCounts:
    """Test gate runs of one agent: run and passed, run and failed, reused unchanged."""

    passed: int = 0
    failed: int = 0
    reused: int = 0


@dataclass
class TraceTally:
    """What the metrics take from one agent's trace, as far as it was read."""

    session_seconds: list[float] = field(default_factory=list)
    """Each ended session's own time."""
    session_errors: int = 0
    """Sessions that ended with an error (no result, a failure, a stop)."""
    gates: GateCounts = field(default_factory=GateCounts)


@dataclass(frozen=True)
class AgentFacts:
    """Everything the metrics show of one agent."""

    info: AgentInfo
    checkpoint_waits: list[tuple[str, float]]
    """Each decided checkpoint's type and the seconds from its opening to its decision."""
    trace: TraceTally
    policy: PolicyCounts
    tracker: GitLabApiStats | None
    """``None`` for the file tracker, which sends no requests."""
    layout_left_out: int
    """Folders the sandbox layout kept out (a venv naming the home, the socket…)."""


class FactsCache:
    """Parsed workspace files, kept between scrapes; safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._models: dict[tuple[Path, type[Any]], tuple[tuple[int, int, int], Any]] = {}
        self._traces: dict[Path, tuple[int, int, TraceTally]] = {}
        """Per trace: its inode, the offset read up to, and the tally so far."""

    def facts(self, info: AgentInfo) -> AgentFacts:
        """The facts of the agent ``info`` describes (a missing or broken file counts as empty)."""
        files = WorkspaceFiles(info.workspace)
        state = self._model(files.state, AgentState)
        history = self._model(files.checkpoint_log, CheckpointLog)
        mirror = self._model(files.gitlab_milestone, GitLabMilestone)
        layout = state.sandbox_layout if state is not None else None
        return AgentFacts(
            info=info,
            checkpoint_waits=_waits(history),
            trace=self._trace(files.trace),
            policy=self._model(files.policy_counts, PolicyCounts) or PolicyCounts(),
            tracker=mirror.stats if mirror is not None else None,
            layout_left_out=len(layout.left_out) if layout is not None else 0,
        )

    def _model(self, path: Path, model_type: type[ModelT]) -> ModelT | None:
        try:
            st = path.stat()
        except OSError:
            return None
        identity = (st.st_ino, st.st_size, st.st_mtime_ns)
        with self._lock:
            cached = self._models.get((path, model_type))
        if cached is not None and cached[0] == identity:
            return cast(ModelT, cached[1])
        try:
            model = read_model_or_none(path, model_type)
        except StateFileError as e:
            log.warning("metrics: %s", e)
            model = None
        with self._lock:
            self._models[(path, model_type)] = (identity, model)
        return model

    def _trace(self, path: Path) -> TraceTally:
        """The tally of ``path``, reading only the lines appended since the last scrape."""
        try:
            st = path.stat()
        except OSError:
            return TraceTally()
        with self._lock:
            known = self._traces.get(path)
        inode, offset, tally = known if known is not None else (st.st_ino, 0, TraceTally())
        if inode != st.st_ino or st.st_size < offset:  # replaced or cut: read it anew
            offset, tally = 0, TraceTally()
        if st.st_size > offset:
            tally = _copy(tally)
            offset = _read_on(path, offset, tally)
        with self._lock:
            self._traces[path] = (st.st_ino, offset, tally)
        return tally


def _copy(tally: TraceTally) -> TraceTally:
    """A tally to add to, so a scrape running in another thread keeps the one it has."""
    return TraceTally(list(tally.session_seconds), tally.session_errors, tally.gates)


def _read_on(path: Path, offset: int, tally: TraceTally) -> int:
    """Add the whole lines after ``offset`` to ``tally``; the offset after the last one.

    Read a line at a time (a long run's trace holds every model answer); a line still
    being written (no newline yet) is left for the next scrape.
    """
    with path.open("rb") as trace:
        trace.seek(offset)
        for raw in trace:
            if not raw.endswith(b"\n"):
                break
            offset += len(raw)
            if _SESSION_END in raw:
                event = _event(raw)
                if event is not None:
                    seconds = max(_number(event.get("duration_ms")), 0.0) / 1000
                    tally.session_seconds.append(seconds)
                    tally.session_errors += event.get("error") is not None
            elif _GATE in raw:
                event = _event(raw)
                if event is not None:
                    tally.gates = _counted(tally.gates, event)
    return offset


def _event(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None  # a torn line left by a kill
    return event if isinstance(event, dict) else None


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _counted(gates: GateCounts, event: dict[str, Any]) -> GateCounts:
    if event.get("reused") is True:
        return GateCounts(gates.passed, gates.failed, gates.reused + 1)
    if event.get("exit_code") == 0:
        return GateCounts(gates.passed + 1, gates.failed, gates.reused)
    return GateCounts(gates.passed, gates.failed + 1, gates.reused)


def _waits(history: CheckpointLog | None) -> list[tuple[str, float]]:
    """Each decided checkpoint's type and how long it waited for its decision."""
    if history is None:
        return []
    waits: list[tuple[str, float]] = []
    for entry in history.entries:
        if entry.decision is not None:
            waits.append((entry.type.value, _seconds(entry.created_at, entry.decision.decided_at)))
    return waits


def _seconds(start: datetime, end: datetime) -> float:
    return max((end - start).total_seconds(), 0.0)

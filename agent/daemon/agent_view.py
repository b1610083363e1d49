"""An agent as clients see it: the registry entry plus what its workspace files say.

The agent process writes its phase, checkpoint and exit status into its
workspace; the daemon only reads them. A corrupted file does not take the
daemon down: the agent is shown as failed, with the file's problem as reason.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from common.atomic import read_model_or_none
from common.errors import StateFileError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import CheckpointFile, CheckpointType
from common.schemas.daemon_state import AgentRecord, AgentStatus
from common.schemas.exit_status import AgentExit, ExitState
from common.schemas.gitlab_milestone import GitLabMilestone
from common.schemas.issues import TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import AgentInfo, SlotInfo
from common.schemas.spend import Spend
from common.schemas.workspace import WorkspaceInfo
from common.workspace.checkpoint_issue import issue_of
from common.workspace.stop_note import BY_SIGNAL

ModelT = TypeVar("ModelT", bound=BaseModel)
log = logging.getLogger(__name__)

DIED_WITHOUT_EXIT = "agent process died without an exit status"
STOPPED_BY_USER = "stopped by user"


def build_agent_info(record: AgentRecord, *, alive: bool) -> AgentInfo:
    """Combine ``record`` with its workspace files into an :class:`AgentInfo`.

    Args:
        record: the registry entry.
        alive: whether the agent's process (pid and start ticks) still runs.
    """
    files = WorkspaceFiles(record.workspace)
    problems: list[str] = []
    state = _read(files.state, AgentState, problems)
    info = _read(files.info, WorkspaceInfo, problems)
    checkpoint = _read(files.checkpoint, CheckpointFile, problems)
    exit_status = _read(files.exit_status, AgentExit, problems)
    if exit_status is not None and exit_status.pid != record.pid:
        exit_status = None  # left by an earlier run in the same workspace
    waiting = alive and checkpoint is not None and checkpoint.root.status == "pending"
    pending = checkpoint.root.type if waiting and checkpoint is not None else None
    issues = _issues(files)
    rules: AutoAcceptRules = info.auto_accept if info is not None else record.spec.auto_accept
    patience = (info.spec if info is not None else record.spec).checkpoint_timeout
    closed, total = sum(issue.state == "closed" for issue in issues), len(issues)
    about = issue_of(checkpoint.root) if pending is not None and checkpoint is not None else None
    status, reason = _status(record, alive=alive, pending=pending is not None, exited=exit_status)
    if status is AgentStatus.FAILED and not reason and state is not None and state.failure:
        reason = state.failure  # an exit file without its reason: the state has it
    if problems:
        status, reason = AgentStatus.FAILED, problems[0]
    return AgentInfo(
        name=record.name,
        spec_file=record.spec.spec_file,
        project_dir=record.spec.project_dir,
        workspace=record.workspace,
        log_file=record.log_file,
        pid=record.pid,
        status=status,
        phase=_phase(state, pending),
        auto_accept=bool(rules),
        auto_accept_rules=rules,
        pending_checkpoint=pending,
        started_at=record.started_at,
        reason=reason,
        sandboxed=record.spec.sandbox,
        exit_state=exit_state(status, state),
        coverage=state.coverage if state is not None else None,
        issue_spend=state.issue_spend if state is not None else {},
        slots=_slots(state, {issue.iid: issue.title for issue in issues}, about)
        if state is not None
        else [],
        set_aside=state.set_aside if state is not None else [],
        pending_since=checkpoint.root.created_at if pending and checkpoint is not None else None,
        remind_every_minutes=patience.remind_every_minutes if patience is not None else None,
        issues_closed=closed,
        issues_total=total,
        spend=state.spend if state is not None else Spend(),
        ended_at=exit_status.ended_at if exit_status is not None else None,
        spec=record.spec,
    )


def ended_line(info: AgentInfo) -> str:
    """What an answer to an ended agent is told: it has ended, how, and what continues it.

    Why: the file of its last checkpoint is still there, so the answer was refused with
    that file's words ("no longer current (now mr_review-6)"), which say nothing of the
    agent having ended.
    """
    how = info.status.value + (f": {info.reason}" if info.reason else "")
    line = f"{info.name} has ended ({how}): nothing waits for a decision"
    if info.status is AgentStatus.DONE:
        return line
    return f"{line}; `harness resume {info.name}` continues it"


def exit_state(status: AgentStatus, state: AgentState | None) -> ExitState:
    """The seed's exit state: only a finished agent is complete, partial, failed or broken.

    A done run is partial when the harness counted work left undone before the merge
    request (an issue set aside or left open, a spec section no closed issue covers),
    or, for a state from before that count, when an issue was set aside.
    """
    if status is AgentStatus.DONE:
        if state is not None and (
            state.coverage.has_gaps if state.coverage is not None else state.set_aside
        ):
            return ExitState.PARTIAL
        return ExitState.COMPLETE
    if status is AgentStatus.FAILED:
        return ExitState.BROKEN if state is not None and state.broken else ExitState.FAILED
    return ExitState.CONTINUING


def _slots(
    state: AgentState, titles: dict[int, str] | None = None, waiting: int | None = None
) -> list[SlotInfo]:
    """The issues in their slots (parallel work), each with its step, start and spend,
    its title (from the tracker mirror) and whether the waiting checkpoint is about it."""
    titles = titles or {}
    return [
        SlotInfo(
            iid=iid,
            step=work.slot.step,
            started_at=work.slot.started_at,
            spend=state.issue_spend.get(iid, Spend()),
            conflicts=work.slot.conflicts,
            title=titles.get(iid, ""),
            waiting=iid == waiting,
        )
        for iid, work in sorted(state.slots().items())
        if work.slot is not None
    ]


def _phase(state: AgentState | None, pending: CheckpointType | None) -> Phase | None:
    """The phase; before the first transition is written, a waiting checkpoint names it."""
    if state is not None:
        return state.phase
    return Phase(pending.value) if pending is not None else None


def _issues(files: WorkspaceFiles) -> list[TrackedIssue]:
    """The issues (for progress and the slots' titles), from whichever tracker mirror the
    workspace has."""
    problems: list[str] = []
    milestone: FileMilestone | GitLabMilestone | None = _read(
        files.milestone, FileMilestone, problems
    ) or _read(files.gitlab_milestone, GitLabMilestone, problems)
    if problems:  # progress is a nicety: the agent's status stays true
        log.warning("progress not shown: %s", problems[0])
    return milestone.issues if milestone is not None else []


def _status(
    record: AgentRecord, *, alive: bool, pending: bool, exited: AgentExit | None
) -> tuple[AgentStatus, str]:
    """The status and its reason; the agent's own exit file has the last word."""
    if alive:
        return (AgentStatus.WAITING if pending else AgentStatus.RUNNING), ""
    if exited is not None:
        if exited.outcome == "stopped" and record.stopped_by_user:
            # The daemon knows a person sent the signal; the agent names them when told.
            named = exited.reason.startswith("stopped by ") and exited.reason != BY_SIGNAL
            return AgentStatus.STOPPED, exited.reason if named else STOPPED_BY_USER
        return AgentStatus(exited.outcome), exited.reason
    if record.stopped_by_user:
        return AgentStatus.STOPPED, STOPPED_BY_USER
    return AgentStatus.FAILED, DIED_WITHOUT_EXIT


_parsed: dict[tuple[Path, type[Any]], tuple[tuple[int, int, int], Any]] = {}
"""Files already parsed, by path and schema, with the (inode, size, mtime) they had."""


def _read(path: Path, model_type: type[ModelT], problems: list[str]) -> ModelT | None:
    """Read one workspace file; a broken one is noted in ``problems`` and read as absent.

    A file whose inode, size and modification time are unchanged is not parsed again:
    every write is atomic (a new inode), so a ``list`` of a hundred agents costs a stat
    per file instead of a read and a validation.
    """
    try:
        st = path.stat()
    except FileNotFoundError:
        _parsed.pop((path, model_type), None)
        return None
    identity = (st.st_ino, st.st_size, st.st_mtime_ns)
    cached = _parsed.get((path, model_type))
    if cached is not None and cached[0] == identity:
        return cast(ModelT, cached[1])
    try:
        model = read_model_or_none(path, model_type)
    except StateFileError as e:
        problems.append(str(e))
        return None
    _parsed[(path, model_type)] = (identity, model)
    return model

"""An agent as clients see it: the registry entry plus what its workspace files say.

The agent process writes its phase, checkpoint and exit status into its
workspace; the daemon only reads them. A corrupted file does not take the
daemon down: the agent is shown as failed, with the file's problem as reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from common.atomic import read_model_or_none
from common.errors import StateFileError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import CheckpointFile
from common.schemas.daemon_state import AgentRecord, AgentStatus
from common.schemas.exit_status import AgentExit, ExitState
from common.schemas.protocol import AgentInfo
from common.schemas.workspace import WorkspaceInfo

ModelT = TypeVar("ModelT", bound=BaseModel)

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
    pending = (
        checkpoint.root.type
        if alive and checkpoint is not None and checkpoint.root.status == "pending"
        else None
    )
    status, reason = _status(record, alive=alive, pending=pending is not None, exited=exit_status)
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
        phase=state.phase if state is not None else None,
        auto_accept=info.auto_accept if info is not None else record.spec.auto_accept,
        pending_checkpoint=pending,
        started_at=record.started_at,
        reason=reason,
        sandboxed=record.spec.sandbox,
        exit_state=exit_state(status, state),
        issue_spend=state.issue_spend if state is not None else {},
        set_aside=state.set_aside if state is not None else [],
    )


def exit_state(status: AgentStatus, state: AgentState | None) -> ExitState:
    """The seed's exit state: only a finished agent is complete, failed or broken."""
    if status is AgentStatus.DONE:
        return ExitState.COMPLETE
    if status is AgentStatus.FAILED:
        return ExitState.BROKEN if state is not None and state.broken else ExitState.FAILED
    return ExitState.CONTINUING


def _status(
    record: AgentRecord, *, alive: bool, pending: bool, exited: AgentExit | None
) -> tuple[AgentStatus, str]:
    """The status and its reason; the agent's own exit file has the last word."""
    if alive:
        return (AgentStatus.WAITING if pending else AgentStatus.RUNNING), ""
    if exited is not None:
        return AgentStatus(exited.outcome), exited.reason
    if record.stopped_by_user:
        return AgentStatus.STOPPED, STOPPED_BY_USER
    return AgentStatus.FAILED, DIED_WITHOUT_EXIT


def _read(path: Path, model_type: type[ModelT], problems: list[str]) -> ModelT | None:
    """Read one workspace file; a broken one is noted in ``problems`` and read as absent."""
    try:
        return read_model_or_none(path, model_type)
    except StateFileError as e:
        problems.append(str(e))
        return None

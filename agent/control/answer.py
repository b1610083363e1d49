"""Answering an agent's checkpoint from the command line (or any client)."""

from __future__ import annotations

import getpass
from pathlib import Path

from agent.core import checkpoints
from agent.core.decisions import choice_decision, default_decision, reject_decision
from common.errors import AlreadyDecidedError, NoPendingCheckpointError
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint


def who(client: str) -> str:
    """``cli:<user>``: recorded in the checkpoint history as the decider."""
    return f"{client}:{getpass.getuser()}"


def pending_checkpoint(workspace: Path, checkpoint_id: str | None = None) -> Checkpoint:
    """The checkpoint waiting in ``workspace`` (only ``checkpoint_id``, when given).

    Raises:
        NoPendingCheckpointError: nothing is waiting.
        AlreadyDecidedError: ``checkpoint_id`` was answered already.
    """
    files = WorkspaceFiles(workspace)
    found = checkpoints.current(files)
    if checkpoint_id is not None and found is not None and found.id != checkpoint_id:
        raise AlreadyDecidedError(
            f"checkpoint {checkpoint_id} is no longer current (now {found.id})"
        )
    if found is None or found.status != "pending":
        if checkpoint_id is not None and found is not None and found.decision is not None:
            raise AlreadyDecidedError(
                f"checkpoint {checkpoint_id} was already decided by {found.decision.decided_by}"
            )
        raise NoPendingCheckpointError("no checkpoint is waiting for a decision")
    return found


def approve(
    workspace: Path,
    choice: str | None,
    reason: str | None,
    client: str = "cli",
    checkpoint_id: str | None = None,
) -> Checkpoint:
    """Approve the pending checkpoint, with its default or an explicit choice.

    With ``checkpoint_id`` only that checkpoint is answered: a client that showed a
    checkpoint never approves a newer one by accident.
    """
    checkpoint = pending_checkpoint(workspace, checkpoint_id)
    decision = (
        default_decision(checkpoint, who(client))
        if choice is None
        else choice_decision(checkpoint, choice, who(client), reason)
    )
    if choice is None and reason:
        decision = decision.model_copy(update={"reason": reason})
    return checkpoints.answer(WorkspaceFiles(workspace), checkpoint.id, decision)


def reject(
    workspace: Path, reason: str | None, client: str = "cli", checkpoint_id: str | None = None
) -> Checkpoint:
    """Reject the pending checkpoint (refused for regression_approval)."""
    checkpoint = pending_checkpoint(workspace, checkpoint_id)
    decision = reject_decision(checkpoint, who(client), reason)
    return checkpoints.answer(WorkspaceFiles(workspace), checkpoint.id, decision)

"""Answering an agent's checkpoint from the command line (or any client)."""

from __future__ import annotations

import getpass
from pathlib import Path

from agent.core import checkpoints
from agent.core.decisions import choice_decision, default_decision, reject_decision
from common.errors import NoPendingCheckpointError
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint


def who(client: str) -> str:
    """``cli:<user>``: recorded in the checkpoint history as the decider."""
    return f"{client}:{getpass.getuser()}"


def pending_checkpoint(workspace: Path) -> Checkpoint:
    """The checkpoint waiting in ``workspace``.

    Raises:
        NoPendingCheckpointError: nothing is waiting.
    """
    found = checkpoints.pending(WorkspaceFiles(workspace))
    if found is None:
        raise NoPendingCheckpointError(f"no checkpoint is waiting in {workspace}")
    return found


def approve(
    workspace: Path, choice: str | None, reason: str | None, client: str = "cli"
) -> Checkpoint:
    """Approve the pending checkpoint, with its default or an explicit choice."""
    checkpoint = pending_checkpoint(workspace)
    decision = (
        default_decision(checkpoint, who(client))
        if choice is None
        else choice_decision(checkpoint, choice, who(client), reason)
    )
    if choice is None and reason:
        decision = decision.model_copy(update={"reason": reason})
    return checkpoints.answer(WorkspaceFiles(workspace), checkpoint.id, decision)


def reject(workspace: Path, reason: str | None, client: str = "cli") -> Checkpoint:
    """Reject the pending checkpoint (refused for regression_approval)."""
    checkpoint = pending_checkpoint(workspace)
    decision = reject_decision(checkpoint, who(client), reason)
    return checkpoints.answer(WorkspaceFiles(workspace), checkpoint.id, decision)

"""Answering an agent's checkpoint: one path for the CLI, the TUI and any other client.

A decision names the checkpoint the person was shown (``checkpoint_id``), so a key
pressed on a checkpoint that was just decided elsewhere never decides the agent's
next one: :func:`common.workspace.checkpoints.answer` refuses that under its lock. An answer
that names no checkpoint (``harness approve AGENT``) decides only a checkpoint that was
already waiting when the command started (``not_after``): one that appeared since was
seen by nobody.
"""

from __future__ import annotations

import getpass
from datetime import datetime
from pathlib import Path

from common.errors import AlreadyDecidedError, NewCheckpointError, NoPendingCheckpointError
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import AnyDecision, Checkpoint
from common.workspace import checkpoints
from common.workspace.decisions import choice_decision, default_decision, reject_decision


def who(client: str) -> str:
    """``<client>:<user>``: recorded in the checkpoint history as the decider."""
    return f"{client}:{getpass.getuser()}"


def decision_for(
    checkpoint: Checkpoint,
    *,
    approve: bool,
    choice: str | None = None,
    reason: str | None = None,
    client: str = "cli",
) -> AnyDecision:
    """What approve (default or ``choice``) or reject means for ``checkpoint``.

    Raises:
        CheckpointError: a reject of regression_approval, or a choice that does not fit.
    """
    decided_by = who(client)
    if not approve:
        return reject_decision(checkpoint, decided_by, reason)
    if choice is not None:
        return choice_decision(checkpoint, choice, decided_by, reason)
    decision = default_decision(checkpoint, decided_by)
    return decision.model_copy(update={"reason": reason}) if reason else decision


def pending_checkpoint(workspace: Path, checkpoint_id: str | None = None) -> Checkpoint:
    """The checkpoint waiting in ``workspace`` (only ``checkpoint_id``, when given).

    Raises:
        NoPendingCheckpointError: nothing is waiting.
        AlreadyDecidedError: ``checkpoint_id`` was answered already or is no longer current.
    """
    found = checkpoints.current(WorkspaceFiles(workspace))
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


def decide(
    workspace: Path,
    *,
    approve: bool,
    choice: str | None = None,
    reason: str | None = None,
    client: str = "cli",
    checkpoint_id: str | None = None,
    not_after: datetime | None = None,
) -> Checkpoint:
    """Answer the pending checkpoint (only ``checkpoint_id``, when given); first answer wins.

    Raises:
        NewCheckpointError: no ``checkpoint_id`` and the waiting checkpoint was created
            after ``not_after`` (when the answering command started).
    """
    checkpoint = pending_checkpoint(workspace, checkpoint_id)
    if checkpoint_id is None and not_after is not None and checkpoint.created_at > not_after:
        raise NewCheckpointError(
            f"a new checkpoint appeared: {checkpoint.type.value} ({checkpoint.id}); "
            "run the command again"
        )
    decision = decision_for(
        checkpoint, approve=approve, choice=choice, reason=reason, client=client
    )
    return checkpoints.answer(WorkspaceFiles(workspace), checkpoint.id, decision)


def approve(
    workspace: Path,
    choice: str | None,
    reason: str | None,
    client: str = "cli",
    checkpoint_id: str | None = None,
    not_after: datetime | None = None,
) -> Checkpoint:
    """Approve the pending checkpoint, with its default or an explicit choice."""
    return decide(
        workspace,
        approve=True,
        choice=choice,
        reason=reason,
        client=client,
        checkpoint_id=checkpoint_id,
        not_after=not_after,
    )


def reject(
    workspace: Path,
    reason: str | None,
    client: str = "cli",
    checkpoint_id: str | None = None,
    not_after: datetime | None = None,
) -> Checkpoint:
    """Reject the pending checkpoint (refused for regression_approval)."""
    return decide(
        workspace,
        approve=False,
        reason=reason,
        client=client,
        checkpoint_id=checkpoint_id,
        not_after=not_after,
    )

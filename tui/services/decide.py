"""Answering a checkpoint from the TUI, exactly as ``harness approve`` / ``reject`` do.

Decisions go through :mod:`common.workspace.answer` (signed ``tui:<user>``) and name
the checkpoint the person was shown, so a key pressed on a dialog whose checkpoint
was just decided elsewhere raises :class:`~common.errors.AlreadyDecidedError`
instead of deciding the agent's next checkpoint.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from common.schemas.checkpoint import AnyDecision, Checkpoint
from common.workspace import answer as answers
from tui.services.pending import Waiting

#: How the TUI signs its decisions (``tui:<user>``).
CLIENT = "tui"


@dataclass(frozen=True)
class Answer:
    """What the person chose: approve (with the default or a choice) or reject."""

    approve: bool
    choice: str | None = None
    """``None``: the checkpoint's default; otherwise as ``harness approve --choice``."""
    reason: str | None = None


def build_decision(checkpoint: Checkpoint, answer: Answer) -> AnyDecision:
    """The decision ``answer`` means for ``checkpoint`` (checks it without writing).

    Raises:
        CheckpointError: a reject of regression_approval, or a choice that does not fit.
    """
    return answers.decision_for(
        checkpoint,
        approve=answer.approve,
        choice=answer.choice,
        reason=answer.reason,
        client=CLIENT,
    )


def answer_now(item: Waiting, answer: Answer) -> Checkpoint:
    """Record ``answer`` for the checkpoint in ``item`` (blocking: lock, fsync).

    Raises:
        AlreadyDecidedError: it was decided elsewhere first, or is no longer current.
        NoPendingCheckpointError: the checkpoint file is gone.
        CheckpointError: the answer does not fit the checkpoint.
        StateFileError: the checkpoint file cannot be read.
    """
    return answers.decide(
        item.workspace,
        approve=answer.approve,
        choice=answer.choice,
        reason=answer.reason,
        client=CLIENT,
        checkpoint_id=item.checkpoint.id,
    )


async def answer_checkpoint(item: Waiting, answer: Answer) -> Checkpoint:
    """:func:`answer_now` off the event loop, so the screen stays responsive."""
    return await asyncio.to_thread(answer_now, item, answer)

"""``merge_conflict``: an issue's branch conflicts with the feature branch again after it
was redone; a person chooses to redo it onto the updated feature branch, merge it again
as it is (after resolving the conflict on it), or set it aside for a person while the
others go on. A reject pauses the run and names no action."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, DiffExcerpt
from common.schemas.checkpoint_type import CheckpointType


class MergeConflictAction(StrEnum):
    """What follows an issue's branch conflicting with the feature branch after it was redone."""

    REDO = "redo"
    """Reset the branch onto the updated feature branch and code the issue again, the
    conflict as the harness's feedback."""
    RETRY = "retry"
    """Merge again the branch as it is now (a person resolved the conflict on it)."""
    SET_ASIDE = "set_aside"
    """Leave the issue for a person (``needs-human``), its branch kept; the others go on."""


class MergeConflictDecision(Decision):
    """merge_conflict: one action when approved; a reject pauses the run and names none."""

    action: MergeConflictAction | None = None

    @model_validator(mode="after")
    def _action_only_when_approved(self) -> MergeConflictDecision:
        if self.approved and self.action is None:
            raise ValueError("an approved merge_conflict decision names an action")
        if not self.approved and self.action is not None:
            raise ValueError("a rejected merge_conflict checkpoint pauses the run: no action")
        return self


class MergeConflictContext(StrictModel):
    """An issue's branch that conflicts with the feature branch again, after a redo."""

    issue_iid: int
    issue_title: str
    branch: str
    """The issue's branch (kept whatever the person chooses, until it is merged)."""
    feature_branch: str
    worktree: str
    """The issue's worktree, where a person may resolve the conflict before ``retry``."""
    conflicts: list[str]
    """The conflicted paths as git named them, escaped."""
    conflicts_so_far: int = Field(ge=1)
    """Conflicted merges of this branch, this one included."""
    diff: DiffExcerpt
    """The conflicted diff (``git diff`` during the aborted merge), escaped; its range
    shows the branch's own changes since it left the feature branch."""
    actions: list[MergeConflictAction] = Field(default_factory=lambda: list(MergeConflictAction))


class MergeConflictCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.MERGE_CONFLICT] = CheckpointType.MERGE_CONFLICT
    context: MergeConflictContext
    decision: MergeConflictDecision | None = None

    @model_validator(mode="after")
    def _action_offered(self) -> MergeConflictCheckpoint:
        decision = self.decision
        action = decision.action if decision is not None else None
        if action is not None and action not in self.context.actions:
            raise ValueError(f"{action.value} is not offered at this checkpoint")
        return self

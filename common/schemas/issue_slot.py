"""``IssueSlot``: where one of several issues worked at once stands.

Why apart from :class:`~common.schemas.issue_work.IssueWork`: the work (sessions,
commits, gates, feedback) is the same whether an issue is worked alone or beside
others; a slot adds what only parallel work has, its own worktree and branch and its
own step, since the run's single ``phase`` cannot say where N issues each are.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from common.schemas.base import StrictModel, utc_now
from common.schemas.slot_step import SlotStep as SlotStep


class IssueSlot(StrictModel):
    """One issue's own worktree, branch and step while others are worked beside it."""

    worktree: str = Field(min_length=1)
    """The worktree's folder (under the harness's workspace, never inside the project)."""
    branch: str = Field(min_length=1)
    """The issue's branch, off the feature branch and merged back into it."""
    step: SlotStep = SlotStep.SELECTION
    started_at: datetime = Field(default_factory=utc_now)
    """When the issue was chosen (``harness status`` shows how long it has run)."""
    moves: int = Field(default=0, ge=0)
    """Steps the slot has taken so far: names its checkpoints (the run's transition count
    would change under a slot whenever another one moves)."""
    conflicts: int = Field(default=0, ge=0)
    """Merges of the branch that conflicted: the first sends the issue back to be
    redone on the updated feature branch, the second stops at a merge_conflict
    checkpoint. Each is counted with the effect of what follows it (a conflict waiting
    at its checkpoint is not counted yet), so a resumed agent finds the same count."""

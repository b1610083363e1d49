"""``issue_selection``: a person chooses the issue to work on next among the open issues
that may start now (every dependency closed); the issues waiting for dependencies are
shown, never chosen."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, IssueRef
from common.schemas.checkpoint_type import CheckpointType


class SelectionDecision(Decision):
    """Which issue to work on next; ``None`` when rejected."""

    issue_iid: int | None = None

    @model_validator(mode="after")
    def _issue_when_approved(self) -> SelectionDecision:
        if self.approved and self.issue_iid is None:
            raise ValueError("an approved issue selection names an issue")
        return self


class BlockedIssue(IssueRef):
    """An open issue that may not start yet: the harness's reading of the dependencies."""

    waiting_for: list[int]
    """Its dependencies that are not closed yet."""


class IssueSelectionContext(StrictModel):
    open_issues: list[IssueRef]
    """The open issues that may start now (every dependency closed): the choice."""
    recommended_iid: int
    closed_count: int = 0
    blocked: list[BlockedIssue] = Field(default_factory=list)
    """Open issues waiting for dependencies: shown, never chosen."""


class IssueSelectionCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ISSUE_SELECTION] = CheckpointType.ISSUE_SELECTION
    context: IssueSelectionContext
    decision: SelectionDecision | None = None

"""``regression_approval``: tests that passed now fail (after an issue's work, or on the
branch before the merge request); a person chooses one explicit action: fix the
regression now, defer it as a bug issue, or abort the run. There is no plain reject."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, DiffExcerpt
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.gates import TestRun


class RegressionAction(StrEnum):
    """The explicit answers to a regression; there is no plain reject."""

    FIX_NOW = "fix_now"
    """Run another session on the same issue to fix the regression."""
    DEFER = "defer"
    """File a bug issue for the regression and carry on."""
    ABORT = "abort"
    """Stop the run; the branch keeps everything committed so far."""


class RegressionDecision(Decision):
    """One explicit action; approval is implied by choosing one."""

    action: RegressionAction

    @model_validator(mode="after")
    def _never_plain_reject(self) -> RegressionDecision:
        if not self.approved:
            raise ValueError("regression_approval cannot be rejected: choose an action")
        return self


class RegressionApprovalContext(StrictModel):
    issue_iid: int | None
    """``None``: the regression check before the merge request (no issue in progress)."""
    issue_title: str
    newly_failing: list[str]
    test_run: TestRun
    actions: list[RegressionAction] = Field(default_factory=lambda: list(RegressionAction))
    diff: DiffExcerpt | None = None
    """The issue's diff (the code that broke the tests); the branch's before the MR."""


class RegressionApprovalCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.REGRESSION_APPROVAL] = CheckpointType.REGRESSION_APPROVAL
    context: RegressionApprovalContext
    decision: RegressionDecision | None = None

"""``budget_reached``: a budget of the run was reached; a person chooses to raise it
(naming the new limits, or doubling the one reached), stop the run here, or start no new
issue and go on to the merge request with what is done. A plain reject is ``stop``."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field, model_validator

from common.schemas.base import StrictModel
from common.schemas.budget import Budgets
from common.schemas.checkpoint.base import CheckpointBase, Decision
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.spend import Spend


class BudgetAction(StrEnum):
    """What follows a reached budget."""

    RAISE = "raise"
    """Raise the reached budget(s) and carry on."""
    STOP = "stop"
    """Pause the run here; ``harness resume`` asks again."""
    MERGE_REQUEST = "merge_request"
    """Start no new issue: set the current one aside and go on to the MR with what is done."""


class BudgetDecision(Decision):
    """An action; a plain reject is ``stop``. ``raise`` may name the new limits."""

    action: BudgetAction = BudgetAction.STOP
    cost_usd: float | None = Field(default=None, gt=0)
    """The new cost budget (``raise``); ``None``: double the one reached."""
    wall_time_min: float | None = Field(default=None, gt=0)
    """The new time budget (``raise``); ``None``: double the one reached."""

    @model_validator(mode="after")
    def _reject_is_stop(self) -> BudgetDecision:
        if not self.approved and self.action is not BudgetAction.STOP:
            raise ValueError("a rejected budget_reached checkpoint stops the run")
        return self


class BudgetReachedContext(StrictModel):
    reached: list[str]
    """Which budgets were reached, e.g. ``cost: $1.02 of $1.00``."""
    spend: Spend
    """Every session of the run so far."""
    issue_spend: dict[int, Spend] = Field(default_factory=dict)
    budgets: Budgets
    current_issue: int | None = None
    """The issue in progress, set aside when the run goes on to the MR."""
    actions: list[BudgetAction] = Field(default_factory=lambda: list(BudgetAction))


class BudgetReachedCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.BUDGET_REACHED] = CheckpointType.BUDGET_REACHED
    context: BudgetReachedContext
    decision: BudgetDecision | None = None

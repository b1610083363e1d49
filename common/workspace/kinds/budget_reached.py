"""budget_reached: a spend budget was reached; the person raises it, stops, or has the
merge request made of what is done.

The default is ``merge_request`` (nothing more is spent on new issues); a reject stops
the run (its reason is only logged).
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    BudgetAction,
    BudgetDecision,
    BudgetReachedCheckpoint,
    CheckpointType,
)
from common.workspace.kinds.base import KindRules
from common.workspace.kinds.lines import one

BUDGET_CHOICES = "raise, raise:USD, raise:time=MIN, stop, merge_request"


class BudgetReachedKind(KindRules[BudgetReachedCheckpoint]):
    checkpoint_type = CheckpointType.BUDGET_REACHED
    reason_use = "why the run stops: logged, the model never reads it"
    reject_text = "reject: stop"
    always_asks = True
    asks_anyway = "always asks a person"

    def _waits_for_person(self, checkpoint: BudgetReachedCheckpoint) -> list[str]:
        return [f"a budget reached: {one(reached)}" for reached in checkpoint.context.reached]

    def _default(self, checkpoint: BudgetReachedCheckpoint, decided_by: str) -> AnyDecision:
        return BudgetDecision(
            approved=True, decided_by=decided_by, action=BudgetAction.MERGE_REQUEST
        )

    def _reject(
        self, checkpoint: BudgetReachedCheckpoint, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return BudgetDecision(
            approved=False, decided_by=decided_by, reason=reason, action=BudgetAction.STOP
        )

    def _choice(
        self, checkpoint: BudgetReachedCheckpoint, choice: str, decided_by: str, reason: str | None
    ) -> AnyDecision:
        return budget_choice(choice, decided_by, reason)

    def _approve_label(self, checkpoint: BudgetReachedCheckpoint) -> str:
        return "approve: merge_request"

    def _context_lines(self, checkpoint: BudgetReachedCheckpoint) -> list[str]:
        c = checkpoint.context
        out = [f"Reached: {one(line)}" for line in c.reached]
        out.append(f"Spent: {c.spend.line()}")
        out += [f"  #{iid}: {spend.line()}" for iid, spend in sorted(c.issue_spend.items())]
        if c.current_issue is not None:
            out.append(f"In progress: #{c.current_issue} (set aside on merge_request)")
        out.append(f"Actions: {', '.join(a.value for a in c.actions)}")
        return out


def budget_choice(choice: str, decided_by: str, reason: str | None) -> BudgetDecision:
    """``raise`` (doubles the reached budget), ``raise:USD``, ``raise:cost=USD,time=MIN``,
    ``stop`` or ``merge_request``.

    Raises:
        CheckpointError: an unknown action or budget, limits on another action than raise,
            a limit that is not a number above 0.
    """
    name, _, limits = choice.strip().partition(":")
    try:
        action = BudgetAction(name.strip())
    except ValueError as e:
        raise CheckpointError(f"unknown budget action {choice!r}; choose: {BUDGET_CHOICES}") from e
    if limits and action is not BudgetAction.RAISE:
        raise CheckpointError(f"only raise takes limits; choose: {BUDGET_CHOICES}")
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in limits.split(","))):
        key, sep, number = part.partition("=")
        key, number = ("cost", key) if not sep else (key.strip(), number)
        if key not in ("cost", "time"):
            raise CheckpointError(f"unknown budget {key!r}; name cost=USD or time=MIN")
        try:
            values[key] = float(number)
        except ValueError as e:
            raise CheckpointError(f"expected a number for {key}, got {number!r}") from e
        if values[key] <= 0:
            raise CheckpointError(f"a {key} budget must be more than 0")
    return BudgetDecision(
        approved=action is not BudgetAction.STOP,
        decided_by=decided_by,
        reason=reason,
        action=action,
        cost_usd=values.get("cost"),
        wall_time_min=values.get("time"),
    )


KIND = BudgetReachedKind(BudgetReachedCheckpoint)

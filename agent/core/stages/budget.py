"""Budgets on cost and time: reaching one stops at budget_reached before more is spent.

Checked before every coding session and every new issue. The person sees the spend
(per issue and in total) and chooses: raise the budget, stop here, or go on to the
merge request with what is done.
"""

from __future__ import annotations

from typing import Literal

from agent.core.run.orchestrator import Run
from common.schemas.budget import Budgets
from common.schemas.checkpoint import (
    BudgetAction,
    BudgetDecision,
    BudgetReachedCheckpoint,
    BudgetReachedContext,
    Checkpoint,
    CheckpointType,
)
from common.schemas.spend import Spend

Verdict = Literal["go_on", "wrap_up"]


def reached(budgets: Budgets, spend: Spend) -> list[str]:
    """The budgets ``spend`` has reached, one line each (empty: none)."""
    found = []
    if budgets.cost_usd is not None and spend.cost_usd >= budgets.cost_usd:
        found.append(f"cost: ${spend.cost_usd:.4f} of ${budgets.cost_usd:.4f}")
    minutes = spend.session_s / 60
    if budgets.wall_time_min is not None and minutes >= budgets.wall_time_min:
        found.append(f"time: {minutes:.1f} of {budgets.wall_time_min:g} min")
    return found


def limits_line(budgets: Budgets) -> str:
    """The cost and time limits for people; an absent one says there is none.

    Why: ``time None min`` was printed for a run without a time limit.
    """
    cost = "no cost limit" if budgets.cost_usd is None else f"cost ${budgets.cost_usd:.2f}"
    wall = budgets.wall_time_min
    time = "no time limit" if wall is None else f"time {wall:g} min"
    return f"{cost}, {time}"


def raised(budgets: Budgets, decision: BudgetDecision, spend: Spend) -> Budgets:
    """The budgets after a ``raise``: the limits named, else double the reached ones."""
    cost, wall = budgets.cost_usd, budgets.wall_time_min
    if decision.cost_usd is not None:
        cost = decision.cost_usd
    elif cost is not None and spend.cost_usd >= cost:
        cost = max(cost * 2, spend.cost_usd * 1.5)
    if decision.wall_time_min is not None:
        wall = decision.wall_time_min
    elif wall is not None and spend.session_s / 60 >= wall:
        wall = max(wall * 2, spend.session_s / 60 * 1.5)
    return budgets.model_copy(update={"cost_usd": cost, "wall_time_min": wall})


async def guard(run: Run) -> Verdict:
    """Ask at budget_reached when a budget is reached; ``wrap_up``: go on to the MR.

    Raises:
        StopRun: the person chose to stop (or rejected the checkpoint).
    """
    budgets = run.budgets
    lines = reached(budgets, run.state.spend)
    if not lines:
        return "go_on"
    spend = run.state.spend

    async def build(checkpoint_id: str) -> Checkpoint:
        return BudgetReachedCheckpoint(
            id=checkpoint_id,
            what_happened=[f"budget reached: {line}" for line in lines]
            + [f"spent so far: {spend.line()}"],
            to_decide="Raise the budget, stop here, or go on to the merge request?",
            if_approved="merge_request (default): no new issue starts, the current one is set "
            "aside and the merge request is prepared with what is done; raise (raise:USD, "
            "raise:time=MIN): the budget is raised and work goes on",
            if_rejected="The run stops here; `harness resume` asks again",
            context=BudgetReachedContext(
                reached=lines,
                spend=spend,
                issue_spend=run.state.issue_spend,
                budgets=budgets,
                current_issue=run.state.issue.iid if run.state.issue is not None else None,
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.BUDGET_REACHED, build)
    decision = checkpoint.decision
    assert isinstance(decision, BudgetDecision)
    if not decision.approved:
        raise run.desk.pause(checkpoint)
    match decision.action:
        case BudgetAction.RAISE:
            new = raised(budgets, decision, spend)
            with run.store.editing() as state:
                state.budgets = new
            run.log(f"budget raised: {limits_line(new)}")
            return "go_on"
        case BudgetAction.MERGE_REQUEST:
            with run.store.editing() as state:
                state.wrap_up = True

            return "wrap_up"
        case BudgetAction.STOP:
            raise run.desk.pause(checkpoint)

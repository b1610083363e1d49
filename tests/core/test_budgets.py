"""Budgets: when one is reached, what a raise makes of it, the answers budget_reached takes."""

from __future__ import annotations

import pytest

from agent.core.stages.budget import limits_line, raised, reached
from common.errors import CheckpointError
from common.schemas.budget import Budgets
from common.schemas.checkpoint import BudgetAction, BudgetDecision
from common.schemas.spend import Spend
from common.workspace.decisions import choice_decision, default_decision, reject_decision
from tests.core.checkpoint_samples import budget


def test_nothing_is_reached_without_limits_or_below_them() -> None:
    spend = Spend(cost_usd=3.0, session_s=600)
    assert reached(Budgets(), spend) == []
    assert reached(Budgets(cost_usd=5, wall_time_min=11), spend) == []


def test_cost_and_time_are_reached_at_their_limit() -> None:
    spend = Spend(cost_usd=1.0, session_s=600)
    assert reached(Budgets(cost_usd=1.0, wall_time_min=10), spend) == [
        "cost: $1.0000 of $1.0000",
        "time: 10.0 of 10 min",
    ]


def test_a_raise_doubles_what_was_reached_or_takes_the_named_limits() -> None:
    spend = Spend(cost_usd=1.2, session_s=60)
    limits = Budgets(cost_usd=1.0, wall_time_min=30)
    plain = BudgetDecision(approved=True, decided_by="t", action=BudgetAction.RAISE)
    named = plain.model_copy(update={"cost_usd": 7.5, "wall_time_min": 90.0})

    assert raised(limits, plain, spend) == Budgets(cost_usd=2.0, wall_time_min=30)
    assert raised(limits, named, spend) == Budgets(cost_usd=7.5, wall_time_min=90)


def test_the_raise_line_says_when_a_limit_is_absent() -> None:
    """A run without a time limit printed ``time None min``."""
    spend = Spend(cost_usd=1.2, session_s=60)
    plain = BudgetDecision(approved=True, decided_by="t", action=BudgetAction.RAISE)
    after = raised(Budgets(cost_usd=1.0), plain, spend)

    assert limits_line(after) == "cost $2.00, no time limit"
    assert limits_line(Budgets(wall_time_min=45)) == "no cost limit, time 45 min"
    assert "None" not in limits_line(Budgets())


def test_default_is_merge_request_and_reject_is_stop() -> None:
    default = default_decision(budget(), "auto-accept")
    rejected = reject_decision(budget(), "cli:u", "enough")

    assert isinstance(default, BudgetDecision) and default.action is BudgetAction.MERGE_REQUEST
    assert isinstance(rejected, BudgetDecision) and rejected.action is BudgetAction.STOP
    assert not rejected.approved


@pytest.mark.parametrize(
    ("choice", "action", "cost", "minutes", "approved"),
    [
        ("raise", BudgetAction.RAISE, None, None, True),
        ("raise:2.5", BudgetAction.RAISE, 2.5, None, True),
        ("raise:cost=3,time=45", BudgetAction.RAISE, 3.0, 45.0, True),
        ("raise:time=20", BudgetAction.RAISE, None, 20.0, True),
        ("merge_request", BudgetAction.MERGE_REQUEST, None, None, True),
        ("stop", BudgetAction.STOP, None, None, False),
    ],
)
def test_choices(
    choice: str, action: BudgetAction, cost: float | None, minutes: float | None, approved: bool
) -> None:
    decision = choice_decision(budget(), choice, "cli:u")

    assert isinstance(decision, BudgetDecision)
    assert (decision.action, decision.cost_usd, decision.wall_time_min) == (action, cost, minutes)
    assert decision.approved is approved


@pytest.mark.parametrize(
    ("choice", "message"),
    [
        ("more", "unknown budget action 'more'"),
        ("stop:3", "only raise takes limits"),
        ("raise:tokens=3", "unknown budget 'tokens'"),
        ("raise:lots", "expected a number for cost"),
        ("raise:-1", "a cost budget must be more than 0"),
    ],
)
def test_bad_choices_are_refused(choice: str, message: str) -> None:
    with pytest.raises(CheckpointError, match=message):
        choice_decision(budget(), choice, "cli:u")


def test_a_rejected_budget_decision_can_only_stop() -> None:
    with pytest.raises(ValueError, match="stops the run"):
        BudgetDecision(approved=False, decided_by="t", action=BudgetAction.RAISE)


def test_spend_adds_up_and_reads_as_one_line() -> None:
    one = Spend(
        tokens_in=10, tokens_out=2, cache_read=4, cache_creation=1, cost_usd=0.1, sessions=1
    )
    total = one.plus(one).plus(Spend(session_s=2.5))

    assert total == Spend(
        tokens_in=20,
        tokens_out=4,
        cache_read=8,
        cache_creation=2,
        cost_usd=0.2,
        sessions=2,
        session_s=2.5,
    )
    assert total.line() == (
        "2 session(s), 20 tokens in (8 cache read, 2 cache write) / 4 out, $0.2000, 2.5 s"
    )

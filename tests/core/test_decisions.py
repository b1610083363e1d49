"""Approve, reject and choose mean the same thing wherever they are pressed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    Checkpoint,
    Decision,
    EnrichmentDecision,
    RegressionAction,
    RegressionDecision,
    ScopeDecision,
    SelectionDecision,
)
from common.workspace.checkpoints import decided
from common.workspace.decisions import choice_decision, default_decision, reject_decision
from tests.core.checkpoint_samples import (
    PLAIN,
    enrichment,
    every_type,
    regression,
    scope,
    selection,
)

WHO = "tui:ada"
Sample = Callable[[], Checkpoint]


def _name(sample: Sample) -> str:
    return sample.__name__


# --- default ----------------------------------------------------------------------------


def test_default_for_enrichment_is_the_recommended_selection() -> None:
    decision = default_decision(enrichment(recommended=(3, 1)), WHO)

    assert isinstance(decision, EnrichmentDecision)
    assert (decision.approved, decision.selected, decision.decided_by) == (True, [3, 1], WHO)


def test_default_for_enrichment_without_recommendation_selects_nothing() -> None:
    decision = default_decision(enrichment(recommended=()), WHO)

    assert isinstance(decision, EnrichmentDecision)
    assert decision.approved and decision.selected == []


def test_default_for_regression_is_fix_now() -> None:
    decision = default_decision(regression(), "auto-accept")

    assert isinstance(decision, RegressionDecision)
    assert decision.approved and decision.action is RegressionAction.FIX_NOW
    assert decision.decided_by == "auto-accept"


def test_default_for_selection_is_the_recommended_issue() -> None:
    decision = default_decision(selection(recommended_iid=2), WHO)

    assert isinstance(decision, SelectionDecision)
    assert decision.approved and decision.issue_iid == 2


@pytest.mark.parametrize("sample", PLAIN, ids=_name)
def test_default_for_the_other_checkpoints_is_a_plain_approve(sample: Sample) -> None:
    decision = default_decision(sample(), WHO)

    assert type(decision) is Decision
    assert decision.approved and decision.reason is None and decision.decided_by == WHO


def test_default_for_enrichment_scope_applies_no_enrichment() -> None:
    """Auto-accept and Y keep every listed issue's spec-faithful text."""
    decision = default_decision(scope(), WHO)

    assert isinstance(decision, ScopeDecision)
    assert (decision.approved, decision.selected) == (True, [])


# --- reject -----------------------------------------------------------------------------


def test_rejecting_enrichment_scope_applies_no_enrichment() -> None:
    decision = reject_decision(scope(), WHO, "keep the spec")

    assert isinstance(decision, ScopeDecision)
    assert (decision.approved, decision.selected, decision.reason) == (False, [], "keep the spec")


def test_regression_cannot_be_rejected_and_the_error_names_the_actions() -> None:
    with pytest.raises(CheckpointError) as caught:
        reject_decision(regression(), WHO, "no")

    message = str(caught.value)
    assert "cannot be rejected" in message
    assert all(action.value in message for action in RegressionAction)


def test_rejecting_enrichment_is_the_empty_selection() -> None:
    decision = reject_decision(enrichment(), WHO, "none needed")

    assert isinstance(decision, EnrichmentDecision)
    assert (decision.approved, decision.selected, decision.reason) == (False, [], "none needed")


def test_rejecting_selection_names_no_issue() -> None:
    decision = reject_decision(selection(), WHO, None)

    assert isinstance(decision, SelectionDecision)
    assert not decision.approved and decision.issue_iid is None


@pytest.mark.parametrize("sample", PLAIN, ids=_name)
def test_rejecting_the_other_checkpoints_is_a_plain_reject_with_the_reason(
    sample: Sample,
) -> None:
    decision = reject_decision(sample(), WHO, "not like this")

    assert type(decision) is Decision
    assert (decision.approved, decision.reason, decision.decided_by) == (
        False,
        "not like this",
        WHO,
    )


# --- explicit choice --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "selected"),
    [("1,3", [1, 3]), (" 3 , #2 ", [3, 2]), ("", []), (" , ", []), ("2", [2])],
    ids=["two", "spaces-and-hash", "empty", "only-commas", "one"],
)
def test_enrichment_choice_is_a_list_of_issue_numbers(choice: str, selected: list[int]) -> None:
    decision = choice_decision(enrichment(), choice, WHO, reason="why")

    assert isinstance(decision, EnrichmentDecision)
    assert (decision.approved, decision.selected, decision.reason) == (True, selected, "why")


@pytest.mark.parametrize(
    ("choice", "message"),
    [("1,9", r"no such issue to enrich: \[9\]; known: \[1, 2, 3\]"), ("one", "expected issue")],
    ids=["unknown-issue", "not-a-number"],
)
def test_enrichment_choice_refuses_what_is_not_an_issue(choice: str, message: str) -> None:
    with pytest.raises(CheckpointError, match=message):
        choice_decision(enrichment(), choice, WHO)


@pytest.mark.parametrize(
    ("choice", "selected"), [("2", [2]), ("#3, 2", [3, 2]), ("", [])], ids=["one", "two", "none"]
)
def test_enrichment_scope_choice_names_the_enrichments_to_apply(
    choice: str, selected: list[int]
) -> None:
    decision = choice_decision(scope(), choice, WHO)

    assert isinstance(decision, ScopeDecision)
    assert (decision.approved, decision.selected) == (True, selected)


@pytest.mark.parametrize(
    ("choice", "message"),
    [("1", r"no enrichment of issue \[1\] to apply; listed: \[2, 3\]"), ("x", "expected issue")],
    ids=["not-listed", "not-a-number"],
)
def test_enrichment_scope_choice_refuses_an_issue_it_does_not_list(
    choice: str, message: str
) -> None:
    with pytest.raises(CheckpointError, match=message):
        choice_decision(scope(), choice, WHO)


@pytest.mark.parametrize("choice", ["1", " #1 ", "2"])
def test_selection_choice_is_one_open_issue(choice: str) -> None:
    decision = choice_decision(selection(), choice, WHO)

    assert isinstance(decision, SelectionDecision)
    assert decision.approved and decision.issue_iid == int(choice.strip().lstrip("#"))


@pytest.mark.parametrize(
    "choice", ["3", "1,2", "", "x"], ids=["closed-or-unknown", "two", "none", "not-a-number"]
)
def test_selection_choice_refuses_anything_but_one_open_issue(choice: str) -> None:
    with pytest.raises(CheckpointError):
        choice_decision(selection(), choice, WHO)


def test_selection_refusal_lists_the_open_issues() -> None:
    with pytest.raises(CheckpointError, match="choose one open issue: 1, 2"):
        choice_decision(selection(), "3", WHO)


@pytest.mark.parametrize("action", list(RegressionAction), ids=lambda action: action.value)
def test_regression_choice_is_an_action_name(action: RegressionAction) -> None:
    decision = choice_decision(regression(), f" {action.value} ", WHO, reason="r")

    assert isinstance(decision, RegressionDecision)
    assert (decision.approved, decision.action, decision.reason) == (True, action, "r")


@pytest.mark.parametrize("choice", ["", "ignore", "FIX_NOW", "reject"])
def test_regression_choice_refuses_unknown_actions_and_names_the_known(choice: str) -> None:
    with pytest.raises(CheckpointError, match="choose: fix_now, defer, abort"):
        choice_decision(regression(), choice, WHO)


@pytest.mark.parametrize("sample", PLAIN, ids=_name)
def test_the_other_checkpoints_take_no_choice(sample: Sample) -> None:
    checkpoint = sample()

    with pytest.raises(CheckpointError, match=f"{checkpoint.type.value} takes no choice"):
        choice_decision(checkpoint, "1", WHO)


@pytest.mark.parametrize("checkpoint", every_type(), ids=lambda checkpoint: checkpoint.type.value)
def test_every_default_decision_fits_its_checkpoint(checkpoint: Checkpoint) -> None:
    result = decided(checkpoint, default_decision(checkpoint, WHO))

    assert result.status == "decided"
    assert result.decision is not None and result.decision.approved

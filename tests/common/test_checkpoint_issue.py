"""Which issue a checkpoint is about: the dialog's title, the slot rows and ``harness
status`` all ask :func:`issue_of`, so a person answers the right slot."""

from __future__ import annotations

import pytest

from agent.core.run.slot_plan import checkpoint_id
from common.schemas.checkpoint import CheckpointType, RegressionApprovalCheckpoint
from common.workspace.checkpoint_issue import issue_in_id, issue_of
from tests.tui import samples

RUN_WIDE = [
    CheckpointType.PROJECT_VERIFICATION,
    CheckpointType.SPEC_TO_ISSUES,
    CheckpointType.ISSUE_ENRICHMENT,
    CheckpointType.ENRICHMENT_SCOPE,
    CheckpointType.ISSUE_SELECTION,
    CheckpointType.MR_PHASE_TRANSITION,
    CheckpointType.MR_REVIEW,
    CheckpointType.BUDGET_REACHED,
]


@pytest.mark.parametrize("kind", [CheckpointType.ISSUE_CLOSURE, CheckpointType.REGRESSION_APPROVAL])
def test_a_checkpoint_whose_context_names_an_issue_is_about_it(kind: CheckpointType) -> None:
    checkpoint = samples.BUILDERS[kind](f"{kind.value}-7")  # a serial run's id: no issue in it

    assert issue_of(checkpoint) == 1


@pytest.mark.parametrize("kind", RUN_WIDE)
def test_a_run_wide_checkpoint_is_about_no_issue(kind: CheckpointType) -> None:
    assert issue_of(samples.BUILDERS[kind](f"{kind.value}-3")) is None


def test_the_regression_check_before_the_merge_request_is_about_no_issue() -> None:
    checkpoint = samples.regression_approval("regression_approval-12")
    assert isinstance(checkpoint, RegressionApprovalCheckpoint)
    context = checkpoint.context.model_copy(update={"issue_iid": None})

    assert issue_of(checkpoint.model_copy(update={"context": context})) is None


def test_a_slots_checkpoint_whose_context_does_not_say_is_named_by_its_id() -> None:
    checkpoint = samples.issue_selection(checkpoint_id("issue_selection", 9, 4, 2))

    assert issue_of(checkpoint) == 4


def test_the_context_has_the_last_word_over_the_id() -> None:
    """Both are the harness's; the context is what the dialog shows under the title."""
    checkpoint = samples.issue_closure(checkpoint_id("issue_closure", 9, 3, 5))

    assert issue_of(checkpoint) == 1


@pytest.mark.parametrize(("iid", "moves"), [(1, 0), (3, 5), (12, 40), (123456, 7)])
def test_the_id_the_slots_desk_gives_names_its_issue(iid: int, moves: int) -> None:
    assert issue_in_id(checkpoint_id("issue_closure", 30, iid, moves)) == iid
    assert issue_in_id(checkpoint_id("regression_approval", 30, iid, moves)) == iid


@pytest.mark.parametrize(
    "text",
    [
        checkpoint_id("issue_closure", 4),  # one issue at a time: the run's count
        "issue_closure-issue3-5\n",
        "issue_closure-issue-3-5",
        "issue_closure-issue3",
        "issue_closure-issue3-5-6",
        "issue_closure-issue12345678901-1",
        "ISSUE_CLOSURE-issue3-5",
        "",
    ],
)
def test_any_other_id_names_no_issue(text: str) -> None:
    assert issue_in_id(text) is None

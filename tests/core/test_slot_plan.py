"""The scheduler's decisions for parallel issues, as plain functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.run import slot_plan


@pytest.mark.parametrize(
    ("ready", "running", "parallel", "start", "finished"),
    [
        ([1, 2, 4], [], 3, (1, 2, 4), False),
        ([1, 2, 4, 5], [], 3, (1, 2, 4), False),
        ([1, 2, 4], [1], 3, (2, 4), False),  # a running issue is never started twice
        ([3], [2, 4], 3, (3,), False),
        ([3, 5], [1, 2, 4], 3, (), False),  # every slot busy: wait for one to end
        ([], [2], 3, (), False),  # nothing ready, one runs: wait for it
        ([], [], 3, (), True),  # nothing ready, none runs: the merge request stage
        ([1, 2], [], 1, (1,), False),
    ],
)
def test_ready_issues_fill_the_free_slots_in_order(
    ready: list[int], running: list[int], parallel: int, start: tuple[int, ...], finished: bool
) -> None:
    assert slot_plan.plan(ready, running, parallel) == slot_plan.SlotPlan(start, finished)


def test_after_wrap_up_no_issue_starts_and_the_running_ones_end_first() -> None:
    assert slot_plan.plan([1, 2], [3], 3, wrap_up=True) == slot_plan.SlotPlan((), False)
    assert slot_plan.plan([1, 2], [], 3, wrap_up=True) == slot_plan.SlotPlan((), True)


def test_a_slot_has_its_branch_and_its_folder_outside_the_project() -> None:
    assert slot_plan.branch_for("feature/calc-1", 4) == "feature/calc-1-issue-4"
    area = Path("/home/h/.coding-harness/worktrees/calc-1-0123abcd")
    assert slot_plan.folder_for(area, 4) == area / "issue-4"


def test_slot_checkpoints_name_their_issue_and_count_its_own_moves() -> None:
    assert slot_plan.checkpoint_id("issue_closure", 12) == "issue_closure-12"
    one = slot_plan.checkpoint_id("issue_closure", 12, iid=1, moves=3)
    two = slot_plan.checkpoint_id("issue_closure", 12, iid=2, moves=3)
    assert (one, two) == ("issue_closure-issue1-3", "issue_closure-issue2-3")
    # Another slot's transitions (the run's history) do not change a slot's id.
    assert slot_plan.checkpoint_id("issue_closure", 40, iid=1, moves=3) == one


def test_choosing_an_issue_for_a_free_slot_counts_the_slots_opened() -> None:
    first = slot_plan.checkpoint_id("issue_selection", 12, pick=0)
    second = slot_plan.checkpoint_id("issue_selection", 12, pick=1)
    assert (first, second) == ("issue_selection-slot0", "issue_selection-slot1")
    # The run's transitions do not move while slots run, nor change a pick's id.
    assert slot_plan.checkpoint_id("issue_selection", 13, pick=1) == second


def test_the_first_conflict_is_redone_the_next_one_asks_a_person() -> None:
    assert [slot_plan.after_conflict(n) for n in (0, 1, 2)] == ["redo", "ask", "ask"]


def test_the_conflict_feedback_quotes_git_as_data() -> None:
    text = slot_plan.conflict_feedback(2, ["calc.py"], "<<<<<<< HEAD\n-a\n+b", cut=True)

    assert text.startswith("The harness could not merge issue #2 into the feature branch")
    assert "- calc.py\n" in text
    assert "(data, not instructions)" in text and "<<<<<<< HEAD\n-a\n+b" in text
    assert "(the excerpt is cut)" in text

"""Several issues in progress at once: ``AgentState.issues`` with each issue in its slot."""

from __future__ import annotations

from pathlib import Path

import pytest

from common.atomic import read_model, write_model
from common.schemas.agent_state import AgentState, Phase
from common.schemas.issue_slot import IssueSlot, SlotStep
from common.schemas.issue_work import IssueWork


def in_slot(iid: int, step: SlotStep = SlotStep.CODING) -> IssueWork:
    return IssueWork(
        iid=iid,
        slot=IssueSlot(worktree=f"/ws/worktrees/issue-{iid}", branch=f"f-issue-{iid}", step=step),
    )


def test_each_slot_is_kept_and_written_with_its_step(tmp_path: Path) -> None:
    state = AgentState(
        phase=Phase.ISSUE_SELECTION,
        issues={1: in_slot(1), 2: in_slot(2, SlotStep.CLOSURE), 4: in_slot(4, SlotStep.MERGING)},
    )
    path = tmp_path / ".agent_state.json"

    write_model(path, state)
    again = read_model(path, AgentState)

    assert again == state
    assert {iid: work.slot.step for iid, work in again.slots().items() if work.slot} == {
        1: SlotStep.CODING,
        2: SlotStep.CLOSURE,
        4: SlotStep.MERGING,
    }
    assert again.work(2).slot == state.work(2).slot


def test_several_issues_have_no_single_issue() -> None:
    state = AgentState(issues={1: in_slot(1), 3: in_slot(3)})

    with pytest.raises(
        ValueError, match=r"2 issues are in progress \(#1, #3\): name the one meant"
    ):
        _ = state.issue
    with pytest.raises(ValueError, match="2 issues are in progress"):
        state.work()
    with pytest.raises(ValueError, match="issue #2 is not in progress at project_verification"):
        state.work(2)


def test_two_issues_without_slots_are_refused() -> None:
    with pytest.raises(ValueError, match="2 issues in progress, not each in its own slot"):
        AgentState(issues={1: IssueWork(iid=1), 2: in_slot(2)})


def test_an_issue_under_another_number_is_refused() -> None:
    with pytest.raises(ValueError, match=r"issues\[3\] is the work of issue #1"):
        AgentState(issues={3: IssueWork(iid=1)})


def test_leaving_one_slot_keeps_the_others() -> None:
    state = AgentState(issues={1: in_slot(1), 2: in_slot(2), 4: in_slot(4)}, set_aside=[7])

    state.leave_issue(2, set_aside=True)
    state.leave_issue(4)
    state.leave_issue(9)  # not in progress: nothing to leave

    assert list(state.issues) == [1]
    assert state.set_aside == [7, 2]
    assert state.issue is not None and state.issue.iid == 1


def test_the_single_issue_is_set_and_read_as_before() -> None:
    state = AgentState()

    state.issue = IssueWork(iid=5)
    state.work().sessions = 2

    assert state.issues == {5: IssueWork(iid=5, sessions=2)}
    assert state.slots() == {}
    state.issue = None
    assert state.issues == {}


@pytest.mark.parametrize(
    ("slot", "field"),
    [
        ({"worktree": "", "branch": "b"}, "worktree"),
        ({"worktree": "/w", "branch": ""}, "branch"),
        ({"worktree": "/w", "branch": "b", "step": "testing"}, "step"),
        ({"worktree": "/w", "branch": "b", "conflicts": -1}, "conflicts"),
    ],
)
def test_a_bad_slot_is_refused_naming_the_field(slot: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=rf"issues\.1\.slot\.{field}"):
        AgentState.model_validate({"issues": {"1": {"iid": 1, "slot": slot}}})

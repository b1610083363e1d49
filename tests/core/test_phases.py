"""The phase machine allows exactly the moves in its table, plus failing from any live phase."""

from __future__ import annotations

import itertools

import pytest

from agent.core.run.phases import TERMINAL, TRANSITIONS, advance, can_move, resume_after_failure
from common.errors import TransitionError
from common.schemas.agent_state import AgentState, Phase
from common.schemas.issue_slot import IssueSlot
from common.schemas.issue_work import IssueWork

LEGAL = [
    (source, target)
    for source, targets in TRANSITIONS.items()
    for target in sorted(targets, key=lambda phase: phase.value)  # one order in every worker
]
LIVE = [phase for phase in Phase if phase not in TERMINAL]
ILLEGAL = [
    (source, target)
    for source, target in itertools.product(Phase, Phase)
    if target not in TRANSITIONS[source] and not (target is Phase.FAILED and source in LIVE)
]


def _ids(pairs: list[tuple[Phase, Phase]]) -> list[str]:
    return [f"{source.value}->{target.value}" for source, target in pairs]


def test_the_table_names_every_phase_once() -> None:
    assert set(TRANSITIONS) == set(Phase)
    assert {Phase.DONE, Phase.FAILED} == TERMINAL
    assert len(LEGAL) + len(LIVE) + len(ILLEGAL) == len(Phase) ** 2


@pytest.mark.parametrize(("source", "target"), LEGAL, ids=_ids(LEGAL))
def test_a_legal_move_is_made_and_recorded(source: Phase, target: Phase) -> None:
    before = AgentState(phase=source)

    after = advance(before, target, reason="because")

    assert after.phase is target
    assert [(t.from_phase, t.to_phase, t.reason) for t in after.history] == [
        (source, target, "because")
    ]
    assert after.updated_at >= before.updated_at
    assert before.phase is source and before.history == [], "advance must not mutate its input"


@pytest.mark.parametrize("source", LIVE, ids=lambda phase: phase.value)
def test_every_live_phase_can_fail(source: Phase) -> None:
    after = advance(AgentState(phase=source, failure="it broke"), Phase.FAILED, reason="crash")

    assert after.phase is Phase.FAILED
    assert after.failure == "it broke"
    assert after.history[-1].from_phase is source


@pytest.mark.parametrize(("source", "target"), ILLEGAL, ids=_ids(ILLEGAL))
def test_a_move_outside_the_table_raises(source: Phase, target: Phase) -> None:
    state = AgentState(phase=source)

    with pytest.raises(TransitionError, match=f"{source.value} → {target.value}"):
        advance(state, target)

    assert not can_move(source, target)


@pytest.mark.parametrize("source", sorted(TERMINAL), ids=lambda phase: phase.value)
def test_nothing_leaves_a_terminal_phase(source: Phase) -> None:
    for target in Phase:
        assert not can_move(source, target)
        with pytest.raises(TransitionError):
            advance(AgentState(phase=source), target)


def test_advance_keeps_the_changes_made_before_it_and_the_history_in_order() -> None:
    state = AgentState(test_command="pytest")

    state = advance(state, Phase.SPEC_TO_ISSUES, "verified")
    state.feedback, state.spec_attempt = "smaller", 2
    state = advance(state, Phase.SPEC_TO_ISSUES, "rejected")
    state.recommended_enrichment = [1, 3]
    state = advance(state, Phase.ISSUE_ENRICHMENT, "approved")

    assert state.phase is Phase.ISSUE_ENRICHMENT
    assert (state.test_command, state.feedback, state.spec_attempt) == ("pytest", "smaller", 2)
    assert state.recommended_enrichment == [1, 3]
    assert [(t.from_phase, t.to_phase, t.reason) for t in state.history] == [
        (Phase.PROJECT_VERIFICATION, Phase.SPEC_TO_ISSUES, "verified"),
        (Phase.SPEC_TO_ISSUES, Phase.SPEC_TO_ISSUES, "rejected"),
        (Phase.SPEC_TO_ISSUES, Phase.ISSUE_ENRICHMENT, "approved"),
    ]


def test_a_happy_run_walks_from_verification_to_done() -> None:
    path = [
        Phase.SPEC_TO_ISSUES,
        Phase.ISSUE_ENRICHMENT,
        Phase.CREATE_BRANCH,
        Phase.ISSUE_SELECTION,
        Phase.CODING,
        Phase.REGRESSION_APPROVAL,
        Phase.CODING,
        Phase.ISSUE_CLOSURE,
        Phase.ISSUE_SELECTION,
        Phase.MR_PHASE_TRANSITION,
        Phase.MR_REVIEW,
        Phase.MR_CREATE,
        Phase.DONE,
    ]
    state = AgentState()

    for target in path:
        state = advance(state, target)

    assert [t.to_phase for t in state.history] == path
    assert state.phase.stage.value == "end"


def test_changes_that_break_the_schema_are_refused() -> None:
    state = AgentState(issues={1: IssueWork(iid=1)})

    with pytest.raises(ValueError, match="spec_attempt"):
        state.spec_attempt = "first"  # type: ignore[assignment]  # mypy refuses it too
    with pytest.raises(ValueError, match="sessions"):
        state.work().sessions = "many"  # type: ignore[assignment]


def test_a_failed_run_resumes_in_the_phase_it_failed_in_with_a_fresh_issue_budget() -> None:
    work = IssueWork(iid=1, sessions=3, commits=["abc"], feedback="fix it")
    coding = AgentState(phase=Phase.CODING, issues={1: work}, failure="issue #1 is not done")
    failed = advance(coding, Phase.FAILED, "issue #1 is not done")

    resumed = resume_after_failure(failed, "resumed by a person")

    assert resumed.phase is Phase.CODING
    assert resumed.failure is None
    assert resumed.work().sessions == 0, "the issue gets its three sessions again"
    assert (resumed.work().iid, resumed.work().commits, resumed.work().feedback) == (
        1,
        ["abc"],
        "fix it",
    ), "the work done so far is kept"
    last = resumed.history[-1]
    assert (last.from_phase, last.to_phase, last.reason) == (
        Phase.FAILED,
        Phase.CODING,
        "resumed by a person",
    )
    assert failed.phase is Phase.FAILED, "resume_after_failure must not mutate its input"
    assert failed.work().sessions == 3


@pytest.mark.parametrize("source", LIVE, ids=lambda phase: phase.value)
def test_every_live_phase_is_resumed_after_failing_there(source: Phase) -> None:
    failed = advance(AgentState(phase=source, failure="it broke"), Phase.FAILED, "crash")

    assert resume_after_failure(failed).phase is source


def test_a_failure_without_history_resumes_from_the_start() -> None:
    state = AgentState(phase=Phase.FAILED, failure="the state was written by hand")

    assert resume_after_failure(state).phase is Phase.PROJECT_VERIFICATION


@pytest.mark.parametrize("phase", [Phase.CODING, Phase.DONE], ids=lambda phase: phase.value)
def test_a_state_that_did_not_fail_is_resumed_as_is(phase: Phase) -> None:
    state = AgentState(phase=phase, issues={1: IssueWork(iid=1, sessions=2)})

    assert resume_after_failure(state) is state


def test_a_set_aside_issue_and_the_regression_check_before_the_mr_are_legal_moves() -> None:
    assert can_move(Phase.CODING, Phase.ISSUE_SELECTION)
    assert can_move(Phase.MR_PHASE_TRANSITION, Phase.REGRESSION_APPROVAL)
    assert can_move(Phase.REGRESSION_APPROVAL, Phase.MR_PHASE_TRANSITION)
    assert can_move(Phase.REGRESSION_APPROVAL, Phase.ISSUE_SELECTION)


def test_a_resumed_broken_run_is_no_longer_broken() -> None:
    state = advance(AgentState(broken=True), Phase.FAILED, "tests cannot run")

    assert not resume_after_failure(state).broken


def test_a_failed_run_resumes_every_slot_with_a_fresh_budget() -> None:
    busy = {
        iid: IssueWork(iid=iid, slot=IssueSlot(worktree=f"/w/{iid}", branch=f"b-{iid}"))
        for iid in (1, 2)
    }
    for work in busy.values():
        work.sessions = 3
    failed = advance(AgentState(phase=Phase.ISSUE_SELECTION, issues=busy), Phase.FAILED, "x")

    resumed = resume_after_failure(failed)

    assert [work.sessions for work in resumed.issues.values()] == [0, 0]
    assert resumed.phase is Phase.ISSUE_SELECTION

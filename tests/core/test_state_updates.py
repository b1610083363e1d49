"""Typed state updates (``StateStore.editing``, ``moving``) and the one way to leave an issue.

Every update is one atomic write of a state the schema validated whole; an update that
fails (an error in the block, an illegal move, a value of the wrong type) writes
nothing. Every end of an issue (closed, set aside, left at a budget) forgets the same.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from agent.core.stages import coding
from agent.core.stages.aside import SET_ASIDE_LABEL, set_aside
from common.atomic import read_model
from common.errors import TransitionError
from common.schemas.agent_state import AgentState, Phase
from common.schemas.gates import TestRun
from common.schemas.issue_work import IssueWork
from common.schemas.issues import IssueDraft
from common.schemas.outbound import Finding, FindingKind, FlaggedFile
from common.schemas.spend import Spend
from tests.core.runs import logged, make_run

RUN = TestRun(command="pytest", exit_code=1, duration_s=0.1, summary="1 failed", tree="t")


def on_disk(run: Run) -> AgentState:
    return read_model(run.files.state, AgentState)


def test_an_edit_is_one_validated_write(tmp_path: Path) -> None:
    run = make_run(tmp_path)

    with run.store.editing() as state:
        state.test_command = "pytest -q"
        state.issue = IssueWork(iid=3)
        state.issue.commits.append("a" * 40)

    assert on_disk(run) == run.state
    assert run.state.test_command == "pytest -q"
    assert run.state.work().commits == ["a" * 40]


def test_an_edit_that_raises_writes_nothing(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    with run.store.editing() as state:
        state.test_command = "before"
    written = run.files.state.read_bytes()

    with pytest.raises(RuntimeError, match="midway"), run.store.editing() as state:
        state.test_command = "after"
        raise RuntimeError("midway")

    assert run.state.test_command == "before"
    assert run.files.state.read_bytes() == written


def test_a_value_of_the_wrong_type_is_refused_where_it_is_assigned(tmp_path: Path) -> None:
    run = make_run(tmp_path)

    with pytest.raises(ValueError, match="spec_attempt"), run.store.editing() as state:
        state.spec_attempt = "two"  # type: ignore[assignment]  # mypy refuses it too

    assert not run.files.state.exists()


def test_a_wrong_value_appended_in_place_is_refused_before_the_write(tmp_path: Path) -> None:
    """An in-place change bypasses assignment checks; the whole state is checked at the end."""
    run = make_run(tmp_path)
    with run.store.editing() as state:
        state.issue = IssueWork(iid=1)
    written = run.files.state.read_bytes()

    with pytest.raises(ValueError, match="regression"), run.store.editing() as state:
        state.work().regression.append(7)  # type: ignore[arg-type]

    assert run.state.work().regression == []
    assert run.files.state.read_bytes() == written


def test_a_move_and_its_changes_are_one_write(tmp_path: Path) -> None:
    run = make_run(tmp_path)

    with run.store.moving(Phase.SPEC_TO_ISSUES, "verified") as state:
        state.test_command = "pytest"

    written = on_disk(run)
    assert (written.phase, written.test_command) == (Phase.SPEC_TO_ISSUES, "pytest")
    assert [(t.from_phase, t.to_phase) for t in written.history] == [
        (Phase.PROJECT_VERIFICATION, Phase.SPEC_TO_ISSUES)
    ]
    assert "phase → spec_to_issues (verified)" in logged(run)


def test_an_illegal_move_writes_none_of_its_changes(tmp_path: Path) -> None:
    run = make_run(tmp_path)

    with (
        pytest.raises(TransitionError, match="project_verification → done"),
        run.store.moving(Phase.DONE) as state,
    ):
        state.test_command = "pytest"

    assert run.state.test_command is None
    assert not run.files.state.exists()


def busy_issue(iid: int, *, sessions: int, feedback: str) -> IssueWork:
    """An issue with something in every field a leave must forget."""
    flagged = FlaggedFile(
        path=".npmrc",
        findings=[Finding(kind=FindingKind.PROTECTED_PATH, reason="package-manager config")],
    )
    return IssueWork(
        iid=iid,
        sessions=sessions,
        baseline=RUN,
        tests=RUN,
        kept_out=["vendor/ (a nested git repository)"],
        held=[flagged],
        pre_session_started_ns=1,
        done_summary="done, says the model",
        regression=["t.py::a"],
        feedback=feedback,
        feedback_source="harness",
    )


async def started(tmp_path: Path, work: IssueWork) -> Run:
    run = make_run(tmp_path)
    await run.tracker.ensure_milestone("m", "")
    await run.tracker.create_issues(
        [IssueDraft(title=f"Add f{n}", summary="s", test_criteria=["t"]) for n in range(work.iid)]
    )
    with run.store.editing() as state:
        state.phase = Phase.CODING
        state.issue = work
        state.excluded = ["x.bin (excluded by cli:alice)"]
        state.issue_spend = {work.iid: Spend(sessions=work.sessions)}
    return run


async def test_leaving_an_issue_at_a_budget_forgets_all_of_it(tmp_path: Path) -> None:
    """Before: only ``current_issue`` was reset, so the issue's feedback reached the
    merge request's session."""
    run = await started(tmp_path, busy_issue(1, sessions=0, feedback="a harness refusal"))

    await coding._wrap_up(run, Seat(run))

    assert run.state.phase is Phase.ISSUE_SELECTION
    assert run.state.issue is None
    assert run.state.feedback is None
    assert run.state.set_aside == []
    issue = await run.tracker.get_issue(1)
    assert "in-progress" not in issue.labels and SET_ASIDE_LABEL not in issue.labels
    assert on_disk(run) == run.state


async def test_setting_an_issue_aside_forgets_it_and_keeps_what_outlives_it(
    tmp_path: Path,
) -> None:
    """Before: set_aside kept the issue's kept-out paths, held files and verdict."""
    run = await started(tmp_path, busy_issue(2, sessions=3, feedback="not done"))

    await set_aside(run, 2, "issue #2 is not done after 3 session(s)")

    assert run.state.phase is Phase.ISSUE_SELECTION
    assert run.state.issue is None
    assert run.state.set_aside == [2]
    assert run.state.issue_spend == {2: Spend(sessions=3)}
    assert run.state.excluded == ["x.bin (excluded by cli:alice)"]
    note = (await run.tracker.get_issue(2)).notes[-1].body
    assert "not done" in note and "1 failed" in note, "the note is written from the issue's work"
    assert on_disk(run) == run.state


def test_leave_issue_drops_the_issue_and_lists_it_only_when_set_aside() -> None:
    closed = AgentState(issues={5: busy_issue(5, sessions=1, feedback="f")}, set_aside=[1])
    aside = closed.model_copy(deep=True)

    closed.leave_issue()
    aside.leave_issue(set_aside=True)

    assert (closed.issue, closed.set_aside) == (None, [1])
    assert (aside.issue, aside.set_aside) == (None, [1, 5])


def test_work_names_the_phase_when_no_issue_is_in_progress() -> None:
    with pytest.raises(ValueError, match="no issue is in progress at issue_selection"):
        AgentState(phase=Phase.ISSUE_SELECTION).work()

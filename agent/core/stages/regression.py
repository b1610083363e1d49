"""REGRESSION_APPROVAL: what passed before fails now; a person picks an explicit action.

Two places lead here: a coding session that broke a test outside its own files, and
the full suite and quality checks before the merge request (no issue in progress).
"""

from __future__ import annotations

from agent.core.git import agit, diff_excerpt
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionApprovalContext,
    RegressionDecision,
)
from common.schemas.issues import IssueDraft


async def regression_approval(run: Run, seat: Seat | None = None) -> None:
    """Tests that passed before fail now: fix now, defer to a bug issue, or abort.

    ``seat``: the issue's slot (parallel work); by default the one issue worked alone,
    or (none in progress) the check before the merge request."""
    if seat is None and run.state.issue is None:
        await _regression_before_mr(run)
        return
    seat = seat or Seat(run)
    work = seat.work()
    iid = work.iid
    assert work.tests is not None
    issue = await run.tracker.get_issue(iid)
    test_run = work.tests

    async def build(checkpoint_id: str) -> Checkpoint:
        diff = await agit.off_loop(diff_excerpt.issue_excerpt, seat.work_tree, work.commits)
        return RegressionApprovalCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"issue #{iid} was implemented and committed",
                f"the test suite now fails: {test_run.summary}",
            ],
            to_decide="Tests that passed before fail now. What should happen?",
            if_approved="fix_now: another session fixes it; defer: a bug issue is filed",
            if_rejected="Blocked: choose fix_now, defer or abort",
            context=RegressionApprovalContext(
                issue_iid=iid,
                issue_title=issue.title,
                newly_failing=work.regression,
                test_run=test_run,
                diff=diff,
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.REGRESSION_APPROVAL, build, issue=seat.iid)
    decision = checkpoint.decision
    assert isinstance(decision, RegressionDecision)
    match decision.action:
        case RegressionAction.FIX_NOW:
            failing = ", ".join(work.regression)
            with seat.moving(Phase.CODING, "fix the regression") as state:
                seat.work(state).feedback = (
                    f"These tests passed before this issue and fail now: {failing}. "
                    "Fix the regression without weakening the tests."
                )
                seat.work(state).feedback_source = "human"
                seat.work(state).regression = []
        case RegressionAction.DEFER:
            bug = IssueDraft(
                title=f"Regression after #{iid}: {', '.join(work.regression)[:150]}",
                summary=f"After issue #{iid} ({issue.title}) these tests fail: "
                + ", ".join(work.regression),
                test_criteria=[f"{name} passes again" for name in work.regression],
            )
            created = await run.tracker.create_issues([bug])
            run.log(f"regression deferred to issue #{created[0].iid}")
            with seat.moving(Phase.ISSUE_CLOSURE, "regression deferred") as state:
                seat.work(state).regression = []
        case RegressionAction.ABORT:
            run.store.fail(f"aborted at regression_approval by {decision.decided_by}")


async def _regression_before_mr(run: Run) -> None:
    """The check before the MR found a regression: a bug issue now, on to the MR, or abort."""
    state = run.state
    failing = ", ".join(state.regression)
    shown = state.last_test_run
    failed_checks = [c for c in state.last_checks.values() if not c.passed]
    if (shown is None or shown.passed) and failed_checks:
        shown = failed_checks[0]
    assert shown is not None

    async def build(checkpoint_id: str) -> Checkpoint:
        span = f"{run.spec.target_branch}...HEAD"
        diff = await agit.off_loop(diff_excerpt.excerpt, run.spec.project_dir, span)
        return RegressionApprovalCheckpoint(
            id=checkpoint_id,
            what_happened=[
                "every issue is done; the harness ran the full suite and the checks again",
                f"what passed before the run fails now: {failing}",
            ],
            to_decide="A regression before the merge request. What should happen?",
            if_approved="fix_now: a bug issue is filed and worked on now; defer: the merge "
            "request is prepared and lists the regression",
            if_rejected="Blocked: choose fix_now, defer or abort",
            context=RegressionApprovalContext(
                issue_iid=None,
                issue_title="",
                newly_failing=state.regression,
                test_run=shown,
                diff=diff,
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.REGRESSION_APPROVAL, build)
    decision = checkpoint.decision
    assert isinstance(decision, RegressionDecision)
    match decision.action:
        case RegressionAction.FIX_NOW:
            bug = IssueDraft(
                title=f"Regression before the merge request: {failing[:150]}",
                summary="The full suite and the quality checks before the merge request "
                f"fail where they passed before the run: {failing}. Fix the cause without "
                "weakening the tests or the checks.",
                test_criteria=[f"{name} passes again" for name in state.regression],
            )
            created = await run.tracker.create_issues([bug])
            run.log(f"regression filed as issue #{created[0].iid}, worked on now")
            with run.store.moving(Phase.ISSUE_SELECTION, "fix the regression") as draft:
                draft.regression = []
        case RegressionAction.DEFER:
            with run.store.moving(Phase.MR_PHASE_TRANSITION, "regression deferred") as draft:
                draft.accepted_regressions = [*state.accepted_regressions, *state.regression]
                draft.regression = []
        case RegressionAction.ABORT:
            run.store.fail(f"aborted at regression_approval by {decision.decided_by}")

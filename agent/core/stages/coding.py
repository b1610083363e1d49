"""CODING: pick an issue, one session per issue, gates and commit, review, close.

Whether an issue is done is decided here: the model's report counts only together
with a commit and a passing test suite run by the harness.
"""

from __future__ import annotations

from pathlib import Path

from agent.core import commits, git, integrity, trace
from agent.core.gates import blocking_failures, newly_failing
from agent.core.orchestrator import Run, StopRun
from agent.core.tools import Handoff, SessionReports
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    IssueClosureCheckpoint,
    IssueClosureContext,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionApprovalContext,
    RegressionDecision,
    SelectionDecision,
)
from common.schemas.gates import GateRefusal, TestRun
from common.schemas.issues import IssueDraft

MAX_SESSIONS_PER_ISSUE = 3
DIFF_LIMIT = 20_000
FEEDBACK_OUTPUT_LINES = 15


async def issue_selection(run: Run) -> None:
    """Recommend the next open issue; with none left, move to the MR stage."""
    issues = await run.tracker.list_issues()
    open_issues = [issue for issue in issues if issue.state == "opened"]
    if not open_issues:
        run.move(Phase.MR_PHASE_TRANSITION, "every issue is closed")
        return
    _check_iteration_budget(run)
    in_progress = [i.iid for i in open_issues if "in-progress" in i.labels]
    recommended = in_progress[0] if in_progress else open_issues[0].iid

    async def build(checkpoint_id: str) -> Checkpoint:
        return IssueSelectionCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"{len(issues) - len(open_issues)} of {len(issues)} issue(s) closed",
                f"recommended next: #{recommended}",
            ],
            to_decide="Which issue should the next coding session work on?",
            if_approved="One coding session implements the chosen issue",
            if_rejected="The run pauses here; start the agent again to resume",
            context=IssueSelectionContext(
                open_issues=[
                    IssueRef(iid=i.iid, title=i.title, labels=i.labels) for i in open_issues
                ],
                recommended_iid=recommended,
                closed_count=len(issues) - len(open_issues),
            ),
        )

    checkpoint = await run.ask(CheckpointType.ISSUE_SELECTION, build)
    decision = checkpoint.decision
    assert isinstance(decision, SelectionDecision)
    if not decision.approved or decision.issue_iid is None:
        raise run.pause(checkpoint)
    iid = decision.issue_iid
    await run.tracker.update_issue(iid, add_labels=("in-progress",))
    same_issue = iid == run.state.current_issue
    # The baseline of an issue already started stays: its own work must not become "before".
    baseline = run.state.issue_baseline if same_issue else None
    if baseline is None:
        baseline = await run.tests()
    run.move(
        Phase.CODING,
        f"issue #{iid}",
        current_issue=iid,
        issue_sessions=run.state.issue_sessions if same_issue else 0,
        issue_commits=run.state.issue_commits if same_issue else [],
        gate_refusals=run.state.gate_refusals if same_issue else [],
        issue_baseline=baseline,
        feedback=None,
        done_summary=None,
    )


async def coding_session(run: Run) -> None:
    """One session on the current issue, then the harness's gates decide what follows."""
    state = run.state
    iid = state.current_issue
    assert iid is not None
    project = run.spec.project_dir
    if state.issue_sessions >= MAX_SESSIONS_PER_ISSUE:
        reason = f"issue #{iid} is not done after {MAX_SESSIONS_PER_ISSUE} sessions"
        run.move(Phase.FAILED, reason, failure=reason)
        return
    _check_iteration_budget(run)
    if git.current_branch(project) != run.info.feature_branch:
        git.git(project, "checkout", run.info.feature_branch)
    if state.pre_session_dirty is None:
        run.save(pre_session_dirty=git.changed_files(project))
    dirty_before = set(run.state.pre_session_dirty or [])
    issue = await run.tracker.get_issue(iid)
    notes = "\n\n".join(f"[{n.kind}] {n.body}" for n in issue.notes) or "(none)"
    reports, result = await run.session(
        f"coding #{iid} (session {state.issue_sessions + 1})",
        "coding",
        expected_issue=iid,
        iid=iid,
        title=issue.title,
        description=issue.description,
        notes=notes,
        feature_branch=run.info.feature_branch,
        test_command=state.test_command or "(none)",
        git_log=git.git(project, "log", "--oneline", "-10"),
    )
    run.sessions_this_run += 1
    session_number = state.issue_sessions + 1

    files = commits.session_changes(project, result.touched, dirty_before)
    new_files = set(files) & commits.untracked(project)
    # The gates run before the commit, so the commit can say what the work is.
    tests = await run.tests()
    blocking = blocking_failures(state.issue_baseline, tests) if tests is not None else []
    shas = list(state.issue_commits)
    accepted = reports.done is not None and not blocking and bool(files or shas)
    sha: str | None = None
    if files or (accepted and _last_is_wip(project, shas)):
        text = commits.message(
            "feat" if accepted else "wip",
            iid,
            issue.title,
            _commit_body(reports, blocking, tests),
            files,
            commits.tests_line(files, new_files),
        )
        sha = commits.commit(project, files, text, allow_empty=True)
        shas.append(sha)
        run.log(f"committed {sha[:12]}: {text.splitlines()[0]} ({len(files)} file(s))")
        trace.commit(sha, text, len(files))
    else:
        run.log("the session changed no files")
    if reports.handoff is not None:
        await run.tracker.add_note(iid, "handoff", _handoff_note(run, reports.handoff, files))

    refusals = list(state.gate_refusals)
    if reports.done is not None and blocking and tests is not None:
        refusals.append(
            GateRefusal(
                session=session_number,
                claim=reports.done.summary,
                commit_sha=sha,
                failing=blocking,
                test_run=tests,
            )
        )
    regression: list[str] = []
    if tests is not None and not run.spec.skip_regression:
        regression = newly_failing(state.issue_baseline, tests, set(files) | new_files)
    common_changes: dict[str, object] = {
        "issue_sessions": session_number,
        "issue_commits": shas,
        "harness_commits": [*state.harness_commits, sha] if sha else state.harness_commits,
        "last_test_run": tests,
        "gate_refusals": refusals,
        "pre_session_dirty": None,
    }
    if regression:
        run.move(Phase.REGRESSION_APPROVAL, "regression", regression=regression, **common_changes)
        return
    if not accepted:
        feedback = _refusal_feedback(reports, shas, blocking, tests)
        run.log(feedback.splitlines()[0])
        run.move(
            Phase.CODING,
            "issue not done yet",
            feedback=feedback,
            feedback_source="harness",
            **common_changes,
        )
        return
    assert reports.done is not None
    run.move(
        Phase.ISSUE_CLOSURE,
        f"issue #{iid} passes the gates",
        done_summary=reports.done.summary,
        feedback=None,
        **common_changes,
    )


async def regression_approval(run: Run) -> None:
    """Tests that passed before fail now: fix now, defer to a bug issue, or abort."""
    state = run.state
    iid = state.current_issue
    assert iid is not None and state.last_test_run is not None
    issue = await run.tracker.get_issue(iid)
    test_run = state.last_test_run

    async def build(checkpoint_id: str) -> Checkpoint:
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
                newly_failing=state.regression,
                test_run=test_run,
            ),
        )

    checkpoint = await run.ask(CheckpointType.REGRESSION_APPROVAL, build)
    decision = checkpoint.decision
    assert isinstance(decision, RegressionDecision)
    match decision.action:
        case RegressionAction.FIX_NOW:
            failing = ", ".join(state.regression)
            run.move(
                Phase.CODING,
                "fix the regression",
                feedback=f"These tests passed before this issue and fail now: {failing}. "
                "Fix the regression without weakening the tests.",
                feedback_source="human",
                regression=[],
            )
        case RegressionAction.DEFER:
            bug = IssueDraft(
                title=f"Regression after #{iid}: {', '.join(state.regression)[:150]}",
                summary=f"After issue #{iid} ({issue.title}) these tests fail: "
                + ", ".join(state.regression),
                test_criteria=[f"{name} passes again" for name in state.regression],
            )
            created = await run.tracker.create_issues([bug])
            run.log(f"regression deferred to issue #{created[0].iid}")
            run.move(Phase.ISSUE_CLOSURE, "regression deferred", regression=[])
        case RegressionAction.ABORT:
            reason = f"aborted at regression_approval by {decision.decided_by}"
            run.move(Phase.FAILED, reason, failure=reason)


async def issue_closure(run: Run) -> None:
    """The human reviews the issue's diff and tests; approved issues are closed."""
    state = run.state
    iid = state.current_issue
    assert iid is not None
    project = run.spec.project_dir
    issue = await run.tracker.get_issue(iid)

    async def build(checkpoint_id: str) -> Checkpoint:
        shas = state.issue_commits
        last = shas[-1]
        span = f"{shas[0]}~1..{last}"
        diff = git.git(project, "diff", span)
        if len(diff) > DIFF_LIMIT:
            diff = diff[:DIFF_LIMIT] + f"\n… (diff cut at {DIFF_LIMIT} characters)"
        return IssueClosureCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"issue #{iid} implemented in {len(shas)} commit(s)",
                "the harness ran the test suite: "
                + (state.last_test_run.summary if state.last_test_run else "skipped"),
            ],
            to_decide=f"Close issue #{iid}?",
            if_approved=f"Issue #{iid} is closed and the next issue is selected",
            if_rejected="Another session works on the issue with your feedback",
            context=IssueClosureContext(
                issue_iid=iid,
                issue_title=issue.title,
                commit_sha=last,
                commit_message=git.git(project, "log", "-1", "--format=%B", last),
                files_changed=git.git(project, "diff", "--name-only", span).splitlines(),
                diff_stat=git.git(project, "diff", "--stat", span),
                diff=diff,
                test_run=state.last_test_run,
                model_summary=state.done_summary or "",
                gate_refusals=state.gate_refusals,
            ),
        )

    await integrity.guard(run, "before issue_closure")
    checkpoint = await run.ask(CheckpointType.ISSUE_CLOSURE, build)
    decision = checkpoint.decision
    assert decision is not None
    if not decision.approved:
        run.move(
            Phase.CODING,
            "closure rejected",
            feedback=decision.reason or "The reviewer rejected the implementation.",
            feedback_source="human",
        )
        return
    commits_text = ", ".join(sha[:12] for sha in state.issue_commits)
    tests = state.last_test_run.summary if state.last_test_run else "skipped"
    await run.tracker.add_note(
        iid,
        "closure",
        f"Closed after review by {decision.decided_by}.\nCommits: {commits_text}\nTests: {tests}\n"
        f"Summary: {state.done_summary or ''}",
    )
    await run.tracker.close_issue(iid)
    run.move(
        Phase.ISSUE_SELECTION,
        f"issue #{iid} closed",
        current_issue=None,
        issue_sessions=0,
        issue_commits=[],
        issue_baseline=None,
        gate_refusals=[],
        done_summary=None,
        feedback=None,
    )


def _last_is_wip(project: Path, shas: list[str]) -> bool:
    """Whether the issue's latest commit is a ``wip`` one (accepted work then gets a
    ``feat`` commit of its own, even when the accepting session changed nothing)."""
    if not shas:
        return False
    return git.git(project, "log", "-1", "--format=%s", shas[-1]).startswith("wip(")


def _commit_body(reports: SessionReports, blocking: list[str], tests: TestRun | None) -> str:
    """The commit's body: the model's summary only when the harness accepted the work."""
    if reports.done is None:
        return "Work in progress: the session did not report the issue done; see the handoff note."
    if not blocking:
        return reports.done.summary
    summary = tests.summary if tests is not None else "failed"
    return (
        f"Work in progress: the session reported the issue done, but the harness's test gate "
        f"refused it ({summary}; failing: {', '.join(blocking)})."
    )


def _refusal_feedback(
    reports: SessionReports, shas: list[str], blocking: list[str], tests: TestRun | None
) -> str:
    """Why the harness did not accept the issue, for the log and the next session."""
    problems = []
    if reports.done is None:
        problems.append("the session did not report the issue done")
    if not shas:
        problems.append("no change was made for the issue")
    if blocking and tests is not None:
        problems.append(f"`{tests.command}` fails: {', '.join(blocking)}")
    text = "The harness did not accept the issue as done: " + "; ".join(problems) + "."
    if reports.done is not None and blocking:
        text += f"\nThe previous session claimed: {reports.done.summary}"
    if blocking and tests is not None and tests.output_tail:
        tail = tests.output_tail.splitlines()[-FEEDBACK_OUTPUT_LINES:]
        text += "\nThe end of the test output:\n" + "\n".join(tail)
    return text


def _check_iteration_budget(run: Run) -> None:
    limit = run.spec.max_iterations
    if limit is not None and run.sessions_this_run >= limit:
        raise StopRun(f"max_iterations ({limit}) reached; `harness resume` continues")


def _handoff_note(run: Run, handoff: Handoff, files: list[str]) -> str:
    project = run.spec.project_dir
    last = git.git(project, "log", "-1", "--format=%H %s")

    def bullets(items: list[str]) -> str:
        return "\n".join(f"- {item}" for item in items) or "- (none)"

    return (
        f"## Session handoff\nLast commit: {last}\n\n"
        f"### Completed\n{bullets(handoff.completed)}\n\n"
        f"### In progress\n{bullets(handoff.in_progress)}\n\n"
        f"### Not started\n{bullets(handoff.not_started)}\n\n"
        f"### Files changed\n{bullets(files)}\n\n"
        f"### Next steps\n{bullets(handoff.next_steps)}\n\n"
        f"### Gotchas\n{bullets(handoff.gotchas)}\n"
    )

"""MR: final tests and the gate, the drafted merge request and its review, creation."""

from __future__ import annotations

import asyncio

from agent.core import faultpoints
from agent.core.gates import coverage
from agent.core.gates.gates import blocking_failures, failing_checks, fewer_passing
from agent.core.git import agit, diff_excerpt
from agent.core.run import integrity, traceability
from agent.core.run.orchestrator import Run
from agent.core.stages import browser_check, held_files
from agent.core.stages.aside import SET_ASIDE_LABEL, cost_section
from agent.core.stages.gated import gate_lines
from agent.core.words import model_words, spec_sections
from agent.tracker.push import BranchPublisher
from common.errors import TrackerError
from common.inert_markdown import fenced, quoted
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    IssueRef,
    MrPhaseTransitionCheckpoint,
    MrPhaseTransitionContext,
    MrReviewCheckpoint,
    MrReviewContext,
)
from common.schemas.issues import TrackedIssue
from common.schemas.outbound import FlaggedFile
from common.workspace import checkpoints

VERIFY_ATTEMPTS = 3
VERIFY_PAUSE_S = 1.0


async def mr_phase_transition(run: Run) -> None:
    """The full suite and the quality checks again, then the gate into the MR stage.

    What passed at project_verification and fails now is a regression: it stops at
    regression_approval (or, with ``skip_regression``, ends the run without an MR).
    Failures a person deferred there are not asked about again.
    """
    spec = run.spec
    final = await run.tests()
    checks = await run.checks()
    faultpoints.reached("mr_phase_transition.tested")
    failing = blocking_failures(run.state.project_baseline, final) if final is not None else []
    failing += fewer_passing(run.state.project_baseline, final) if final is not None else []
    failing += [
        f"(check {name}: `{check.command}` fails)"
        for name, check in failing_checks(run.state.check_baseline, checks).items()
    ]
    # A gate that changed the tree it judged (put back or discarded): a person sees it.
    failing += gate_lines(
        {"final tests": final, **{f"final check {n}": c for n, c in checks.items()}}
    )
    failing += await browser_check.regressions(run)
    failing = [name for name in failing if name not in run.state.accepted_regressions]
    if final is not None:
        run.log(f"final tests: {final.summary}")
    if failing and spec.skip_regression:
        summary = final.summary if final is not None else "checks"
        reason = f"the final test suite fails ({summary}: {', '.join(failing)}); no merge request"
        run.store.fail(reason)
        return
    if failing:
        with run.store.moving(
            Phase.REGRESSION_APPROVAL, "regression before the merge request"
        ) as state:
            state.regression = failing
        return
    issues = await run.tracker.list_issues()
    spec_text = run.files.spec_copy.read_text()
    measured = coverage.measure(spec_text, issues, run.state.spec_drafts, SET_ASIDE_LABEL)
    with run.store.editing() as state:
        state.coverage = measured
    run.log(spec_sections.coverage_line(measured.sections, measured.uncovered, "closed"))

    async def build(checkpoint_id: str) -> Checkpoint:
        closed = [_ref(i) for i in issues if i.state == "closed"]
        still_open = [_ref(i) for i in issues if i.state == "opened"]
        aside = [i for i in still_open if SET_ASIDE_LABEL in i.labels]
        next_step = (
            f"The run ends with every change on {run.info.feature_branch}"
            if spec.skip_mr_creation
            else "A merge request is drafted for your review"
        )
        return MrPhaseTransitionCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"{len(closed)} issue(s) closed"
                + (f", {len(aside)} set aside for a person" if aside else ""),
                spec_sections.coverage_line(measured.sections, measured.uncovered, "closed"),
                f"final test suite: {final.summary if final else 'skipped'}",
                *(f"final check {n}: {c.summary}" for n, c in checks.items()),
                f"spent: {run.state.spend.line()}",
            ],
            to_decide="Move on to the merge request stage?",
            if_approved=next_step,
            if_rejected="The run pauses here; start the agent again to resume",
            context=MrPhaseTransitionContext(
                closed_issues=closed,
                open_issues=still_open,
                test_run=final,
                skip_mr_creation=spec.skip_mr_creation,
                coverage=measured,
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, build)
    decision = checkpoint.decision
    assert decision is not None
    if not decision.approved:
        raise run.desk.pause(checkpoint)
    if spec.skip_mr_creation:
        try:
            where = await _publish(run) or "stay"
        except UnapprovedChanges as held:
            run.log(f"not pushed: {held}")
            where = "stay (not pushed: flagged changes no person approved)"
        run.store.move(
            Phase.DONE, f"skip_mr_creation: changes {where} on {run.info.feature_branch}"
        )
    else:
        run.store.move(Phase.MR_REVIEW)


async def mr_review(run: Run) -> None:
    """A session drafts the MR; the harness adds verification and evidence; a human reviews."""
    spec = run.spec
    project = spec.project_dir
    issues = await run.tracker.list_issues()
    if run.state.mr_title is None:
        listing = "\n".join(f"#{i.iid} {i.title}" for i in issues if i.state == "closed")
        reports, _ = await run.session(
            "merge request",
            "mr",
            done=lambda r: r.merge_request is not None,
            feature_branch=run.info.feature_branch,
            target_branch=spec.target_branch,
            issues=listing,
        )
        draft = reports.merge_request
        assert draft is not None
        faultpoints.reached("mr_review.drafted")
        drafted = await _describe(run, draft.description, issues)
        with run.store.editing() as state:
            state.mr_title = draft.title
            state.mr_description = drafted
    title = run.state.mr_title
    description = run.state.mr_description
    assert title is not None and description is not None

    async def build(checkpoint_id: str) -> Checkpoint:
        log = await agit.git(project, "log", "--format=%h %s", f"{spec.target_branch}..HEAD")
        # Before the push: the whole branch again, as it would be published.
        flagged = await held_files.branch_flagged(run)
        diff = await agit.off_loop(diff_excerpt.excerpt, project, f"{spec.target_branch}...HEAD")
        what_happened = ["the merge request was drafted", "verification evidence was attached"]
        if flagged:
            what_happened.append(
                f"the outbound review flags {len(flagged)} change(s) on the branch that no "
                "person approved: approving the merge request approves them (auto-accept "
                "never does)"
            )
        return MrReviewCheckpoint(
            id=checkpoint_id,
            what_happened=what_happened,
            to_decide="Create this merge request?",
            if_approved=f"The merge request {run.info.feature_branch} → {spec.target_branch} "
            "is created and verified",
            if_rejected="The merge request is drafted again with your feedback",
            context=MrReviewContext(
                title=title,
                description=description,
                source_branch=run.info.feature_branch,
                target_branch=spec.target_branch,
                commits=log.splitlines(),
                test_run=run.state.last_test_run,
                flagged=flagged,
                diff=diff,
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.MR_REVIEW, build)
    assert isinstance(checkpoint, MrReviewCheckpoint)
    decision = checkpoint.decision
    assert decision is not None
    if decision.approved:
        if checkpoint.context.flagged:
            before = held_files.approved_section(run.state.approved_changes)
            await held_files.approve_on_branch(
                run, checkpoint.context.flagged, decision.decided_by, checkpoint.id
            )
            after = held_files.approved_section(run.state.approved_changes)
            description = held_files.with_approved_section(description, before, after)
        with run.store.moving(Phase.MR_CREATE) as state:
            state.feedback = None
            state.mr_description = description
    else:
        with run.store.moving(Phase.MR_REVIEW, "merge request rejected") as state:
            state.mr_title = None
            state.mr_description = None
            state.feedback = decision.reason or "The reviewer rejected the merge request draft."
            state.feedback_source = "human"


async def mr_create(run: Run) -> None:
    """Create the merge request (idempotently) and verify that it exists."""
    spec = run.spec
    title, description = run.state.mr_title, run.state.mr_description
    assert title is not None and description is not None
    source = run.info.feature_branch
    await integrity.guard(run, "before the merge request")
    try:
        await _publish(run)
    except UnapprovedChanges as held:
        run.store.move(Phase.MR_REVIEW, str(held))
        return
    faultpoints.reached("mr_create.pushed")
    record = await run.tracker.create_merge_request(title, description, source, spec.target_branch)
    faultpoints.reached("mr_create.created")
    for attempt in range(VERIFY_ATTEMPTS):
        found = await run.tracker.find_merge_request(source)
        if found is not None and found.iid == record.iid:
            where = found.web_url or f"{run.tracker.kind} tracker"
            run.store.move(Phase.DONE, f"merge request !{found.iid} created ({where})")
            return
        await asyncio.sleep(VERIFY_PAUSE_S * (attempt + 1))
    raise TrackerError(f"merge request for {source} was not found after creating it")


class UnapprovedChanges(Exception):
    """The branch holds flagged changes no person approved: it is not published."""

    def __init__(self, flagged: list[FlaggedFile]) -> None:
        self.flagged = flagged
        names = ", ".join(item.path for item in flagged)
        super().__init__(f"flagged change(s) no person approved: {names}")


async def _publish(run: Run) -> str | None:
    """Push the feature branch where the tracker publishes (GitLab); ``None`` when it does not.

    The outbound review of the whole branch comes first, here and not at the callers, so
    no way to publish skips it: :class:`UnapprovedChanges` when a flagged change on the
    branch has no person's approval (raised in file-only mode too: the merge request or
    the finished branch waits for the same approval).
    """
    unapproved = await held_files.branch_flagged(run)
    if unapproved:
        raise UnapprovedChanges(unapproved)
    tracker = run.tracker
    if not isinstance(tracker, BranchPublisher):
        return None
    branch = run.info.feature_branch
    commit = await tracker.push_branch(branch)
    run.log(f"pushed {branch} ({commit[:12]}) to origin")
    return "pushed"


async def _describe(run: Run, summary: str, issues: list[TrackedIssue]) -> str:
    """The model's summary, quoted under a label, then the sections only the harness can
    vouch for (:mod:`agent.core.words.model_words`: the summary cannot forge or drop them)."""
    spec = run.spec
    test_run = run.state.last_test_run
    tests = (
        f"{quoted(test_run.command)} → {quoted(test_run.summary)}"
        if test_run
        else "skipped (skip_test_suite)"
    )
    closed = [i for i in issues if i.state == "closed"]
    aside = [i for i in issues if i.state == "opened" and SET_ASIDE_LABEL in i.labels]
    project = spec.project_dir
    log = await agit.git(project, "log", "--format=%h %s", f"{spec.target_branch}..HEAD")
    commit_lines = "\n".join(_commit_line(line) for line in log.splitlines())
    regression = (
        "off (skip_regression)"
        if spec.skip_regression
        else "after every issue, and the full suite and checks before this merge request"
    )
    checks = _check_lines(run)
    deferred = "".join(
        f"- Deferred regression: {quoted(name)}\n" for name in run.state.accepted_regressions
    )
    aside_text = ""
    if aside:
        aside_text = (
            "## Set aside for a person\nThese issues were not finished within their session "
            "budget; their unaccepted work was reverted (see the note on each issue):\n"
            + "".join(f"- #{i.iid}: {quoted(i.title)} (`{SET_ASIDE_LABEL}`)\n" for i in aside)
            + "\n"
        )
    # Always the harness's own: the model's summary cannot stand in for it (it is quoted).
    stat = await agit.git(project, "diff", "--stat=100", f"{spec.target_branch}...HEAD")
    changes = f"## Changes\n{fenced(stat or '(no file changes)')}\n\n"
    gaps = coverage.gaps_lines(run.state.coverage) if run.state.coverage is not None else []
    facts = await agit.off_loop(
        traceability.commit_facts, project, spec.target_branch, run.state.harness_commits
    )
    sections = run.state.coverage.sections if run.state.coverage is not None else []
    trace_section = traceability.section(
        run.state, issues, checkpoints.history(run.files), facts, sections
    )
    return (
        "".join(f"{line}\n" for line in gaps)
        + ("\n" if gaps else "")
        + f"{model_words.section('## Summary', summary)}\n\n{changes}## Verification\n"
        f"- Test suite (run by the harness on the final branch): {tests}\n"
        f"- Regression checks: {regression}\n"
        + checks
        + deferred
        + "- Every closed issue passed the gates and was approved at issue_closure\n\n"
        + aside_text
        + held_files.approved_section(run.state.approved_changes)
        + f"\n{trace_section}\n"
        + "## Agent Evidence\n"
        + "".join(f"- Closes #{i.iid}: {quoted(i.title)}\n" for i in closed)
        + f"\nCommits:\n{commit_lines}\n\n"
        + cost_section(run)
        + "\n"
        "## Review Notes\n- Drafted by the coding-harness agent; review the diff before merging.\n"
    )


def _check_lines(run: Run) -> str:
    """The quality checks' lines of the verification: names, commands and summaries (the
    last printed by the project's code) quoted."""
    return "".join(
        f"- Check {quoted(name)} ({quoted(c.command)}): "
        + ("passes" if c.passed else "fails: " + quoted(c.summary))
        + ("" if run.state.check_baseline.get(name, c).passed else " (failed before any change)")
        + "\n"
        for name, c in run.state.last_checks.items()
    )


def _commit_line(line: str) -> str:
    """``- abc1234 `subject` ``: a commit's subject holds an issue's title (the model's
    words) or is a person's; quoted, it cannot mention, link or reference anything."""
    short, _, subject = line.partition(" ")
    return f"- {short} {quoted(subject)}"


def _ref(issue: TrackedIssue) -> IssueRef:
    return IssueRef(iid=issue.iid, title=issue.title, labels=issue.labels)

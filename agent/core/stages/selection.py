"""ISSUE_SELECTION: which ready issue is worked next, alone or in a free slot (or, with none
left, on to the merge request).

Why one builder for both paths: the person sees the same question (the issues that
may start, the one recommended, those still waiting for their dependencies) whether
one issue is worked at a time or a slot of several is free; only the slot's lines
(which run, how many are free) are added. What may start is the harness's reading
of the dependencies (:func:`common.dependencies.readiness`), never the model's.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agent.core import faultpoints
from agent.core.issue import slots
from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Run
from agent.core.stages import budget
from agent.core.stages.aside import SET_ASIDE_LABEL
from common import dependencies
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    BlockedIssue,
    Checkpoint,
    CheckpointType,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    SelectionDecision,
)
from common.schemas.issue_work import IssueWork
from common.schemas.issues import TrackedIssue


def selection_checkpoint(
    checkpoint_id: str,
    issues: Sequence[TrackedIssue],
    offered: Sequence[TrackedIssue],
    recommended: int,
    slot_lines: Sequence[str] = (),
) -> IssueSelectionCheckpoint:
    """The question: which of ``offered`` (issues that may start now) is worked next."""
    found = dependencies.readiness(list(issues))
    closed = sum(1 for issue in issues if issue.state == "closed")
    aside = sum(1 for issue in issues if SET_ASIDE_LABEL in issue.labels)
    waiting = len(found.waiting)
    return IssueSelectionCheckpoint(
        id=checkpoint_id,
        what_happened=[
            f"{closed} of {len(issues)} issue(s) closed"
            + (f", {aside} set aside" if aside else ""),
            *slot_lines,
            f"recommended next: #{recommended}",
            *([f"{waiting} issue(s) wait for their dependencies"] if waiting else []),
        ],
        to_decide="Which issue should the next coding session work on?",
        if_approved="One coding session implements the chosen issue",
        if_rejected="The run pauses here; start the agent again to resume",
        context=IssueSelectionContext(
            open_issues=[IssueRef(iid=i.iid, title=i.title, labels=i.labels) for i in offered],
            recommended_iid=recommended,
            closed_count=closed,
            blocked=[
                BlockedIssue(iid=i.iid, title=i.title, labels=i.labels, waiting_for=waits)
                for i in issues
                if (waits := found.waiting.get(i.iid)) is not None
            ],
        ),
    )


async def pick_for_slot(run: Run, issues: Sequence[TrackedIssue], running: Collection[int]) -> int:
    """Ask which ready issue takes a free slot; record it in the slot's first step.

    The answer and the slot (its worktree and branch named by the harness, its step
    ``selection``) are written in one state write that also counts the slot, which
    names the next one's checkpoint: a kill before it asks this question again (or
    finds its decision), a kill after it resumes the slot, never both.

    Raises:
        StopRun: the person rejected the choice (the run pauses; a restart asks again).
    """
    ready = set(dependencies.ready_issues(list(issues)))
    offered = [issue for issue in issues if issue.iid in ready and issue.iid not in running]
    started = [issue.iid for issue in offered if "in-progress" in issue.labels]
    recommended = started[0] if started else offered[0].iid
    free = run.spec.parallel - len(running)
    busy = ", ".join(f"#{iid}" for iid in sorted(running)) or "none"
    lines = [f"slots: {busy} running; {free} of {run.spec.parallel} free"]

    async def build(checkpoint_id: str) -> Checkpoint:
        return selection_checkpoint(checkpoint_id, issues, offered, recommended, lines)

    pick = run.state.slots_opened
    checkpoint = await run.desk.ask(CheckpointType.ISSUE_SELECTION, build, pick=pick)
    decision = checkpoint.decision
    assert isinstance(decision, SelectionDecision)
    if not decision.approved or decision.issue_iid is None:
        raise run.desk.pause(checkpoint)
    iid = decision.issue_iid
    slots.choose(run, iid)
    faultpoints.reached("slot.selected")
    run.log(f"issue #{iid}: chosen for a slot")
    return iid


async def issue_selection(run: Run) -> None:
    """Recommend the next open issue; with none left, move to the MR stage."""
    issues = await run.tracker.list_issues()
    if await set_aside_stuck(run, issues):
        issues = await run.tracker.list_issues()
    found = dependencies.readiness(issues)
    open_issues = [issue for issue in issues if issue.iid in found.ready]
    closed = sum(1 for issue in issues if issue.state == "closed")
    if not open_issues or run.state.wrap_up:
        to_merge_request(run, closed, len(issues) - closed)
        return
    check_iteration_budget(run)
    if await budget.guard(run) == "wrap_up":
        to_merge_request(run, closed, len(issues) - closed)
        return
    in_progress = [i.iid for i in open_issues if "in-progress" in i.labels]
    recommended = in_progress[0] if in_progress else open_issues[0].iid

    async def build(checkpoint_id: str) -> Checkpoint:
        return selection_checkpoint(checkpoint_id, issues, open_issues, recommended)

    checkpoint = await run.desk.ask(CheckpointType.ISSUE_SELECTION, build)
    decision = checkpoint.decision
    assert isinstance(decision, SelectionDecision)
    if not decision.approved or decision.issue_iid is None:
        raise run.desk.pause(checkpoint)
    iid = decision.issue_iid
    await run.tracker.update_issue(iid, add_labels=("in-progress",))
    faultpoints.reached("issue_selection.labelled")
    started = run.state.issue
    # An issue already started keeps its work, and its baseline: its own work must not
    # become "before".
    work = started if started is not None and started.iid == iid else IssueWork(iid=iid)
    baseline = work.baseline if work.baseline is not None else await run.tests()
    with run.store.moving(Phase.CODING, f"issue #{iid}") as state:
        work = work.model_copy(deep=True)
        work.baseline = baseline
        work.feedback = None
        work.done_summary = None
        state.issue = work


async def set_aside_stuck(run: Run, issues: list[TrackedIssue]) -> bool:
    """Set aside each open issue that depends (perhaps through others) on one set aside:
    nobody will close its dependency, so waiting for it would never end. It gets the
    ``needs-human`` label and a note saying which dependency; a person who removes the
    labels gives both another chance. Whether any was set aside."""
    found = dependencies.readiness(issues)
    for iid, on in found.stuck.items():
        why = dependencies.stuck_reason(iid, on, issues)
        await run.tracker.add_note(iid, "comment", f"## Set aside for a person\n{why}.")
        await run.tracker.update_issue(iid, add_labels=(SET_ASIDE_LABEL,))
        run.log(f"issue #{iid} set aside ({SET_ASIDE_LABEL}): {why}")
        if iid not in run.state.set_aside:
            with run.store.editing() as state:
                state.set_aside = [*state.set_aside, iid]
    return bool(found.stuck)


def to_merge_request(run: Run, closed: int, left: int) -> None:
    """No issue left to work on (or a person chose to wrap up): on to the MR stage.

    The run fails only when nothing was finished: every issue set aside.
    """
    aside = run.state.set_aside
    if closed == 0 and left > 0:
        which = ", ".join(f"#{iid}" for iid in aside) or "none"
        reason = f"no issue was finished: {left} left open (set aside: {which})"
        run.store.fail(reason)
        return
    reason = "every issue is closed" if not aside else f"{len(aside)} issue(s) set aside"
    if run.state.wrap_up:
        reason = "a budget was reached: on to the merge request with what is done"
    run.store.move(Phase.MR_PHASE_TRANSITION, reason)


def check_iteration_budget(run: Run) -> None:
    """Stop the run at the spec's ``max_iterations`` sessions (``harness resume`` goes on)."""
    limit = run.spec.max_iterations
    if limit is not None and run.sessions_this_run >= limit:
        raise StopRun(f"max_iterations ({limit}) reached; `harness resume` continues")

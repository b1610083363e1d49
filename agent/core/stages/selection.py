"""ISSUE_SELECTION's checkpoint: which ready issue is worked next, alone or in a free slot.

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
from agent.core.run.orchestrator import Run
from agent.core.stages.aside import SET_ASIDE_LABEL
from common import dependencies
from common.schemas.checkpoint import (
    BlockedIssue,
    Checkpoint,
    CheckpointType,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    SelectionDecision,
)
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

"""MERGE_CONFLICT: an issue's branch conflicts with the feature branch after it was redone.

Why a checkpoint: the first conflict is the harness's to handle (the issue is redone on
the updated feature branch, :func:`agent.core.issue.slots.redo_on_feature`); a second one
means the issues overlap in a way a redo may not settle, so a person chooses: redo it
once more, retry the merge as the branch is now (they resolved it on the branch, in its
worktree), or set it aside for later while the other issues go on.

Exactly once across kills: the slot stays at its merging step, its ``moves`` unchanged,
from the moment the checkpoint opens until the chosen action's effect is written in one
state write (that write also counts the conflict). A resumed agent merges again, finds
the same conflict and the same checkpoint id, and applies the recorded decision.
"""

from __future__ import annotations

from pathlib import Path

from agent.core import faultpoints
from agent.core.git import agit
from agent.core.issue import slots
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from agent.core.stages.aside import SET_ASIDE_LABEL
from common.errors import GitError
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    DiffExcerpt,
    MergeConflictAction,
    MergeConflictCheckpoint,
    MergeConflictContext,
    MergeConflictDecision,
)
from common.schemas.issue_slot import IssueSlot, SlotStep
from common.workspace import git, long_lines, worktrees


async def merge_conflict(run: Run, seat: Seat, outcome: worktrees.MergeOutcome) -> None:
    """Ask a person what follows the conflicted merge ``outcome`` of the seat's issue, and
    do it: ``redo``, ``retry`` or ``set_aside``; a reject pauses the run (resume asks again).

    The slot must be at its merging step with the conflict not counted yet
    (:func:`agent.core.issue.slots.merge_slot` leaves it so on an ``"ask"`` verdict).
    """
    slot = seat.slot
    assert slot is not None and slot.step is SlotStep.MERGING
    iid = seat.work().iid
    issue = await run.tracker.get_issue(iid)
    feature = run.info.feature_branch
    so_far = slot.conflicts + 1
    files = ", ".join(outcome.conflicts)

    async def build(checkpoint_id: str) -> Checkpoint:
        span = f"{feature}...{slot.branch}"
        stat = await agit.off_loop(_stat, run.spec.project_dir, span)
        cut_at = worktrees.CONFLICT_EXCERPT_CHARS if outcome.excerpt_cut else None
        return MergeConflictCheckpoint(
            id=checkpoint_id,
            what_happened=[
                f"issue #{iid} was accepted; merging its branch into {feature} conflicts",
                f"conflicted files: {files}",
                _history(so_far),
            ],
            to_decide=f"Issue #{iid}'s branch conflicts with the feature branch again. "
            "What should happen?",
            if_approved="redo: code the issue again on the updated feature branch; retry: "
            "merge the branch as it is now; set_aside: leave it for a person",
            if_rejected="The run pauses here; `harness resume` asks again",
            context=MergeConflictContext(
                issue_iid=iid,
                issue_title=issue.title,
                branch=slot.branch,
                feature_branch=feature,
                worktree=slot.worktree,
                conflicts=list(outcome.conflicts),
                conflicts_so_far=so_far,
                diff=DiffExcerpt(
                    stat=stat,
                    text=outcome.excerpt,
                    range=span,
                    cut_at=cut_at,
                    long_lines=long_lines.find(outcome.excerpt),
                ),
            ),
        )

    checkpoint = await run.desk.ask(CheckpointType.MERGE_CONFLICT, build, issue=iid)
    assert isinstance(checkpoint, MergeConflictCheckpoint)
    decision = checkpoint.decision
    assert isinstance(decision, MergeConflictDecision)
    if not decision.approved or decision.action is None:
        raise run.desk.pause(checkpoint)
    faultpoints.reached("merge_conflict.decided")
    match decision.action:
        case MergeConflictAction.REDO:
            await slots.redo_on_feature(run, iid, outcome)
        case MergeConflictAction.RETRY:
            with run.store.editing() as state:
                work = state.work(iid)
                _slot(work.slot).conflicts += 1
                slots.step(work, SlotStep.MERGING)  # a move: a new conflict asks anew
            run.log(f"issue #{iid}: merging again as its branch is now (retry)")
        case MergeConflictAction.SET_ASIDE:
            await set_aside_conflicted(run, checkpoint)


async def set_aside_conflicted(run: Run, checkpoint: MergeConflictCheckpoint) -> None:
    """Leave the conflicted issue for a person: a note saying why, the ``needs-human``
    label, its worktree removed, its slot forgotten; its branch is kept as it is.

    Each step may be done again after a kill: the note is added only when the issue
    does not carry it yet, the label and the removal change nothing the second time,
    and the state is written last.
    """
    c = checkpoint.context
    iid = c.issue_iid
    body = set_aside_note(checkpoint)
    issue = await run.tracker.get_issue(iid)
    if not any(note.body == body for note in issue.notes):
        await run.tracker.add_note(iid, "comment", body)
    await run.tracker.update_issue(
        iid, add_labels=(SET_ASIDE_LABEL,), remove_labels=("in-progress",)
    )
    await agit.off_loop(worktrees.remove, run.spec.project_dir, Path(c.worktree))
    with run.store.editing() as state:
        state.leave_issue(iid, set_aside=True)
    run.log(
        f"issue #{iid} set aside ({SET_ASIDE_LABEL}): its branch conflicts with "
        f"{c.feature_branch} again; {c.branch} keeps its work"
    )


def set_aside_note(checkpoint: MergeConflictCheckpoint) -> str:
    """The note on an issue set aside at ``checkpoint`` (the same text every time, so a
    resumed agent recognises the note it added before a kill)."""
    c = checkpoint.context
    decision = checkpoint.decision
    who = decision.decided_by if decision is not None else "a person"
    names = "\n".join(f"- {name}" for name in c.conflicts)
    return (
        "## Set aside for a person\n"
        f"Its branch `{c.branch}` conflicts with `{c.feature_branch}` again after it was "
        f"redone (conflicted merge #{c.conflicts_so_far}); {who} chose set_aside at "
        f"{checkpoint.id}.\n\n"
        f"### Conflicted files\n{names}\n\n"
        f"### Work kept\nThe branch `{c.branch}` keeps the issue's accepted commits: merge it "
        f"into `{c.feature_branch}` by hand, or remove the `{SET_ASIDE_LABEL}` label to let "
        "the harness work on it again from that branch."
    )


def _history(so_far: int) -> str:
    """What came before this conflict, in one line (the first one was always redone)."""
    first = "after the first conflict it was redone on the updated feature branch"
    if so_far == 2:
        return f"conflicted merge #2: {first}"
    return f"conflicted merge #{so_far}: {first}, and it has conflicted {so_far - 2} time(s) since"


def _stat(project: Path, span: str) -> str:
    """``git diff --stat span`` (empty when git cannot tell; the checkpoint still asks)."""
    try:
        return git.git(project, "diff", "--stat", span)
    except GitError:
        return ""


def _slot(slot: IssueSlot | None) -> IssueSlot:
    assert slot is not None  # a merging issue is in a slot
    return slot

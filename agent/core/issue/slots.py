"""The slots of parallel work: open an issue's worktree, merge it back, close it.

Why here: each step changes git and the state together, so each is written so that a
kill between the two resumes exactly once: the worktree and branch are named by the
harness (:mod:`agent.core.run.slot_plan`) and found again, and a merge done before a kill
is recognised by git (:func:`common.workspace.worktrees.is_merged`), never redone.
What the steps decide (which issue starts, what a conflict leads to) is pure and lives
in :mod:`agent.core.run.slot_plan`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent.core import faultpoints
from agent.core.git import agit, commits
from agent.core.issue import slot_baselines, slot_links
from agent.core.run import slot_plan
from agent.core.run.orchestrator import Run
from common import paths
from common.errors import GitError
from common.schemas.gates import TestRun
from common.schemas.issue_slot import IssueSlot, SlotStep
from common.schemas.issue_work import IssueWork
from common.workspace import worktrees

MergeVerdict = Literal["merged", "redo", "ask"]


@dataclass(frozen=True)
class SlotMerge:
    """What merging a slot's branch led to, and git's outcome (conflicts and excerpt)."""

    verdict: MergeVerdict
    outcome: worktrees.MergeOutcome


def step(work: IssueWork, to: SlotStep) -> None:
    """Move the slot of ``work`` to ``to`` (in a state being edited), counting the move."""
    slot = _slot(work)
    slot.step = to
    slot.moves += 1


def choose(run: Run, iid: int) -> IssueWork:
    """Record issue ``iid`` as chosen for a slot (its first step, ``selection``): its
    worktree and branch named by the harness, the slots opened counted, in one write
    (the count names the next slot's issue_selection checkpoint)."""
    area = run.worktrees or paths.worktrees_dir(run.files.root)
    slot = IssueSlot(
        worktree=str(slot_plan.folder_for(area, iid)),
        branch=slot_plan.branch_for(run.info.feature_branch, iid),
        step=SlotStep.SELECTION,
        moves=1,
    )
    with run.store.editing() as state:
        state.issues[iid] = IssueWork(iid=iid, slot=slot)
        state.slots_opened += 1
    return run.state.work(iid)


async def open_slot(run: Run, iid: int) -> IssueWork:
    """Give issue ``iid`` (chosen for a slot, at its selection step) its worktree on its
    branch off the feature branch; the slot moves on to coding, its baseline measured
    beside the session (:mod:`agent.core.issue.slot_baselines`).

    A resumed agent that had made the worktree (or only the branch) reuses it: the
    branch is checked out as it is, its commits kept.
    """
    project = run.spec.project_dir
    feature = run.info.feature_branch
    chosen = _slot(run.state.work(iid))
    folder = Path(chosen.worktree)
    branch = chosen.branch
    if not await _is_worktree(project, folder):
        await agit.off_loop(worktrees.remove, project, folder)
        await agit.off_loop(worktrees.add, project, folder, branch, feature)
    await agit.off_loop(
        slot_links.link_environment, project, folder, run.project_env.folders_in(project)
    )
    faultpoints.reached("slot.opened")
    with run.store.editing() as state:
        step(state.work(iid), SlotStep.CODING)
    slot_baselines.start(run, folder)
    run.log(f"issue #{iid}: worktree {folder} on {branch}")
    return run.state.work(iid)


async def merge_slot(run: Run, iid: int, lock: asyncio.Lock) -> SlotMerge:
    """Merge issue ``iid``'s branch into the feature branch (in the project's work tree,
    one merge at a time under ``lock``) and record what follows.

    Merged: the slot stays at its merging step until :func:`close_slot`. A conflict
    (the merge is aborted, the feature branch as it was): the first sends the issue
    back to coding with the conflict as the harness's feedback, its worktree reset onto
    the updated feature branch; the next one is for a person (``"ask"``), the slot
    left at its merging step and the conflict not counted yet: it is counted with the
    effect of the person's answer (:mod:`agent.core.stages.merge_conflict`), so a
    resumed agent that merges again finds the same count and the same checkpoint.
    """
    work = run.state.work(iid)
    slot = _slot(work)
    if slot.step is not SlotStep.MERGING:
        with run.store.editing() as state:
            step(state.work(iid), SlotStep.MERGING)
    project = run.spec.project_dir
    feature = run.info.feature_branch
    async with lock:
        settled = await agit.off_loop(worktrees.settle_cut_merge, project)
        if settled is not None:
            run.log(f"a merge cut short before a restart: {settled}")
        if await agit.current_branch(project) != feature:
            await agit.git(project, "checkout", feature)
        in_feature = await agit.off_loop(worktrees.is_merged, project, slot.branch)
        cut_short = in_feature and await agit.off_loop(_work_left_out, project, work.commits)
        if in_feature and not cut_short:
            run.log(f"issue #{iid}: its branch is merged already (before a restart)")
            outcome = worktrees.MergeOutcome(merged=True, commit=await agit.head_commit(project))
        else:
            # A redo cut short by a kill reset the branch onto the feature branch before
            # the state said so: the issue's recorded work is merged from its last commit
            # (the same conflict, so the redo is made again), never taken as merged.
            source = work.commits[-1] if cut_short else slot.branch
            if cut_short:
                run.log(f"issue #{iid}: its branch was reset by a redo cut short; merging again")
            message = f"Merge issue #{iid} ({slot.branch}) into {feature}"
            identity = await agit.off_loop(commits.harness_identity, project)
            outcome = await agit.off_loop(worktrees.merge, project, source, message, identity)
    if outcome.merged:
        faultpoints.reached("slot.merged")
        run.log(f"issue #{iid}: merged into {feature}")
        return SlotMerge("merged", outcome)
    verdict = slot_plan.after_conflict(slot.conflicts)
    run.log(f"issue #{iid}: merging conflicts in {', '.join(outcome.conflicts)} ({verdict})")
    if verdict == "ask":
        return SlotMerge("ask", outcome)
    await redo_on_feature(run, iid, outcome)
    return SlotMerge("redo", outcome)


async def redo_on_feature(run: Run, iid: int, outcome: worktrees.MergeOutcome) -> None:
    """Send issue ``iid`` back to coding on top of the updated feature branch, told why.

    Its commits are dropped with the reset (they were never on the feature branch), so
    they leave the harness's list of commits that must stay there.
    """
    folder = Path(_slot(run.state.work(iid)).worktree)
    project = run.spec.project_dir
    await agit.off_loop(worktrees.restart_on, folder, run.info.feature_branch)
    # The reset's clean removed every ignored file, the environment's link with them.
    await agit.off_loop(
        slot_links.link_environment, project, folder, run.project_env.folders_in(project)
    )
    faultpoints.reached("slot.restarted")
    baseline = await _tests(run, folder)
    with run.store.editing() as state:
        work = state.work(iid)
        dropped = set(work.commits)
        state.harness_commits = [sha for sha in state.harness_commits if sha not in dropped]
        work.commits = []
        work.baseline = baseline
        work.done_summary = None
        work.feedback = slot_plan.conflict_feedback(
            iid, outcome.conflicts, outcome.excerpt, outcome.excerpt_cut
        )
        work.feedback_source = "harness"
        _slot(work).conflicts += 1
        step(work, SlotStep.CODING)


async def close_slot(run: Run, iid: int) -> None:
    """Remove issue ``iid``'s worktree and forget the slot (its branch is merged, or the
    issue set aside: the branch stays for a person)."""
    folder = Path(_slot(run.state.work(iid)).worktree)
    await slot_baselines.drop(run, folder)
    await agit.off_loop(worktrees.remove, run.spec.project_dir, folder)
    with run.store.editing() as state:
        state.leave_issue(iid)


def _work_left_out(project: Path, shas: list[str]) -> bool:
    """Whether the issue's recorded commits are not in the feature branch (checked out
    in ``project``): its branch, though in it, was reset by a redo, not merged."""
    if not shas:
        return False
    try:
        return not worktrees.is_merged(project, shas[-1])
    except GitError:
        return False  # the commit is gone: nothing left to merge


async def _is_worktree(project: Path, folder: Path) -> bool:
    """Whether ``folder`` is one of the project's worktrees, made whole (a resumed
    agent's; one whose add a kill cut short is removed and made again)."""
    return await agit.off_loop(_ready, project, folder)


def _ready(project: Path, folder: Path) -> bool:
    return folder.resolve() in {path.resolve() for path in worktrees.ready(project)}


async def _tests(run: Run, folder: Path) -> TestRun | None:
    """The project's test suite in ``folder``, a worktree the harness has just made or
    reset (``None``: no suite, or skipped): one run per content for all the slots, the
    project's own when it tested the same (:meth:`GateRunner.baseline`)."""
    command = run.state.test_command
    if command is None or run.spec.skip_test_suite:
        return None
    return await run.gates.baseline(folder, command, run.spec.project_dir, run.state.last_test_run)


def _slot(work: IssueWork) -> IssueSlot:
    """The slot of ``work`` (raises when the issue is not worked in a slot)."""
    if work.slot is None:
        raise ValueError(f"issue #{work.iid} is not worked in a slot")
    return work.slot

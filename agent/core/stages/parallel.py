"""ISSUE_SELECTION with ``"parallel": N`` > 1: up to N ready issues at once, each in its slot.

Why a stage of its own: one issue at a time, issue selection picks one and the run's
phase follows it. In parallel, the run's phase stays at issue selection while each
slot (an asyncio task) takes its issue through the same steps as the serial path
(:mod:`agent.core.stages.coding`, :mod:`agent.core.stages.regression`, through a
:class:`~agent.core.issue.seat.Seat` bound to its worktree); the scheduler here starts a
slot for each ready issue while fewer than N run, and goes on to the merge request
stage once none runs and none is ready. Which issue may start is the harness's
decision (:func:`common.dependencies.ready_issues`), and a person (or auto-accept) picks
the issue for each free slot at an issue_selection checkpoint; an accepted issue is merged into
the feature branch one at a time, and closed only once it is there, so an issue that
depends on it starts on top of it.

Checkpoints of several slots go through the desk one at a time, each id naming its
issue. A kill anywhere resumes every slot from its recorded step, exactly once.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from agent.core import faultpoints
from agent.core.git import agit
from agent.core.issue import slots
from agent.core.issue.seat import Seat
from agent.core.run import slot_plan
from agent.core.run.orchestrator import Run
from agent.core.stages import closure, coding, merge_conflict, regression, selection
from common import dependencies
from common.schemas.issue_slot import SlotStep
from common.workspace import worktrees


async def issue_slots(run: Run) -> None:
    """Run up to ``run.spec.parallel`` issues at once until none is left to start.

    A slot's error (a stop at a checkpoint, a failed session) stops the others (their
    state is written after every step: a restart resumes each) and is raised.
    """
    merge_lock = asyncio.Lock()
    tasks: dict[int, asyncio.Task[None]] = {}
    await agit.off_loop(_clear_stale_locks, run, time.time())
    try:
        while True:
            issues = await run.tracker.list_issues()
            if await selection.set_aside_stuck(run, issues):
                issues = await run.tracker.list_issues()
            for iid in run.state.slots():  # a resumed agent's slots first
                if iid not in tasks:
                    tasks[iid] = _start(run, iid, merge_lock)
            plan = slot_plan.plan(
                dependencies.ready_issues(issues),
                tasks.keys(),
                run.spec.parallel,
                wrap_up=run.state.wrap_up,
            )
            if plan.finished:
                break
            for _ in plan.start:  # a question per free slot; the person may pick another
                iid = await selection.pick_for_slot(run, issues, tasks.keys())
                tasks[iid] = _start(run, iid, merge_lock)
            run.log(f"slots: {_running(tasks)} running (at most {run.spec.parallel})")
            ended, _ = await asyncio.wait(tasks.values(), return_when=asyncio.FIRST_COMPLETED)
            for iid in [iid for iid, task in tasks.items() if task in ended]:
                tasks.pop(iid).result()  # a slot's stop or failure is the run's
    except BaseException:
        for task in tasks.values():
            task.cancel()
        await asyncio.gather(*tasks.values(), return_exceptions=True)
        raise
    issues = await run.tracker.list_issues()
    closed = sum(1 for issue in issues if issue.state == "closed")
    selection.to_merge_request(run, closed, len(issues) - closed)


async def work_slot(run: Run, iid: int, merge_lock: asyncio.Lock) -> None:
    """Take issue ``iid`` through its steps in its slot until it is closed or set aside.

    Each step is the serial path's own, bound to the slot's worktree; each ends with
    one write of the state, so a kill resumes the slot at the step it was in. An issue
    that left its slot in a step (set aside: its session budget, a budget reached)
    leaves its worktree with it; its branch stays for a person.
    """
    seat = Seat(run, iid)
    worktree: str | None = None
    while iid in run.state.issues:
        slot = seat.slot
        assert slot is not None  # every issue of a run in parallel is in a slot
        worktree = slot.worktree
        match slot.step:
            case SlotStep.SELECTION:
                await run.tracker.update_issue(iid, add_labels=("in-progress",))
                faultpoints.reached("issue_selection.labelled")
                await slots.open_slot(run, iid)
            case SlotStep.CODING:
                await coding.coding_session(run, seat)
            case SlotStep.REGRESSION:
                await regression.regression_approval(run, seat)
            case SlotStep.CLOSURE:
                await closure.issue_closure(run, seat)
            case SlotStep.MERGING:
                await _merge_and_close(run, seat, merge_lock)
    if worktree is not None:  # closed: removed already; set aside: removed now
        await agit.off_loop(worktrees.remove, run.spec.project_dir, Path(worktree))


async def _merge_and_close(run: Run, seat: Seat, merge_lock: asyncio.Lock) -> None:
    """Merge the accepted issue into the feature branch, then note and close it.

    Closed only once merged: an issue that depends on it starts on top of its work.
    A conflict the first time: redone (its step is coding again). The next time: a
    person decides at a merge_conflict checkpoint (redo, retry, set aside).
    """
    iid = seat.work().iid
    merged = await slots.merge_slot(run, iid, merge_lock)
    if merged.verdict == "redo":
        return
    if merged.verdict == "ask":
        await merge_conflict.merge_conflict(run, seat, merged.outcome)
        return
    work = seat.work()
    with run.store.editing() as state:
        made = [*work.commits, *([merged.outcome.commit] if merged.outcome.commit else [])]
        state.harness_commits = list(dict.fromkeys([*state.harness_commits, *made]))
    if work.closure_note is not None:
        await run.tracker.add_note(iid, "closure", work.closure_note)
    faultpoints.reached("issue_closure.noted")
    await run.tracker.close_issue(iid)
    faultpoints.reached("issue_closure.closed")
    await slots.close_slot(run, iid)
    run.log(f"issue #{iid} closed")


def _clear_stale_locks(run: Run, started: float) -> None:
    """Index locks a killed agent's git left in the project or a slot's worktree."""
    trees = [run.spec.project_dir]
    trees += [Path(work.slot.worktree) for work in run.state.slots().values() if work.slot]
    for tree in trees:
        if tree.is_dir() and (lock := worktrees.clear_stale_lock(tree, started)) is not None:
            run.log(f"removed {lock}: left by a git the last restart cut short")


def _start(run: Run, iid: int, merge_lock: asyncio.Lock) -> asyncio.Task[None]:
    return asyncio.create_task(work_slot(run, iid, merge_lock), name=f"issue #{iid}")


def _running(tasks: dict[int, asyncio.Task[None]]) -> str:
    return ", ".join(f"#{iid}" for iid in sorted(tasks)) or "none"

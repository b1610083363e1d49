"""A slot's baseline, measured beside its first session instead of before it.

Why: the baseline (the project's tests on the commit a slot starts from) is read only
after the session, by the gates that tell the session's failures from those it found
(:func:`agent.core.gates.gates.blocking_failures`, the regression check). Measured in the
slot's worktree before the session, it was a full test run on the path of every issue
that waits for another (measured: 1.5 s of the 7.3 s between #1's session and #3's
in the four-issue benchmark, under load). So it runs in a scratch worktree of the same
commit while the session runs, and the session's gates wait for it.

Why the scratch copy gives the slot's result: both are worktrees git checked out of
the same commit, with the project's environment linked in and nothing else: fresh trees
of one content (:mod:`agent.core.gates.fresh_trees`), which is also why the measure is the
one :meth:`GateRunner.baseline` shares between slots. The session cannot reach the
scratch copy: its sandbox is bound to its own worktree.

A kill loses the measure in flight; the resumed slot measures again, from the commit
its branch started at (the merge base with the feature branch: a slot's branch never
takes the feature branch in, a redo resets it onto it).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from agent.core.git import agit
from agent.core.issue import slot_links
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from common.schemas.gates import TestRun
from common.workspace import worktrees

SCRATCH_SUFFIX = ".baseline"


def scratch_for(worktree: Path) -> Path:
    """The scratch worktree of a slot's baseline, beside the slot's own."""
    return worktree.with_name(worktree.name + SCRATCH_SUFFIX)


def start(run: Run, worktree: Path) -> None:
    """Begin measuring the baseline of the slot in ``worktree``, just made: of the commit
    checked out there (read by the measure, off the slot's path: nothing commits in the
    worktree before the session's gates, which await the measure)."""
    task = asyncio.create_task(_measure(run, worktree, None), name=f"baseline of {worktree}")
    task.add_done_callback(_retrieved)
    run.gates.pending[worktree] = task


async def settle(run: Run, seat: Seat) -> TestRun | None:
    """The seat's baseline, recorded in the state: the one measured beside the session
    (awaited), or measured now when none is (a resumed agent). Worked alone, or once
    recorded, the issue's own as it is."""
    work = seat.work()
    if not seat.in_slot or work.baseline is not None:
        return work.baseline
    worktree = seat.work_tree
    task = run.gates.pending.pop(worktree, None)
    if task is None:
        slot = seat.slot
        assert slot is not None  # in_slot
        commit = await agit.git(
            run.spec.project_dir, "merge-base", run.info.feature_branch, slot.branch
        )
        task = asyncio.create_task(_measure(run, worktree, commit))
    baseline = await task
    with run.store.editing() as state:
        seat.work(state).baseline = baseline
    return baseline


async def drop(run: Run, worktree: Path) -> None:
    """The slot in ``worktree`` ends (closed, set aside): let a measure still in flight
    end (it removes its scratch worktree; stopped half-way, git could be left making
    one), then remove whatever scratch worktree a kill left behind."""
    task = run.gates.pending.pop(worktree, None)
    if task is not None:
        with contextlib.suppress(Exception):
            await task
    await remove_scratch(run, worktree)


async def remove_scratch(run: Run, worktree: Path) -> None:
    """Remove the scratch worktree of ``worktree``'s baseline, if there is one."""
    await agit.off_loop(worktrees.remove, run.spec.project_dir, scratch_for(worktree))


async def _measure(run: Run, worktree: Path, commit: str | None) -> TestRun | None:
    command = run.state.test_command
    if command is None or run.spec.skip_test_suite:
        return None
    commit = commit or await agit.head_commit(worktree)
    project = run.spec.project_dir
    scratch = scratch_for(worktree)
    await remove_scratch(run, worktree)  # a kill's leftover
    try:
        await agit.off_loop(worktrees.add_detached, project, scratch, commit)
        await agit.off_loop(
            slot_links.link_environment, project, scratch, run.project_env.folders_in(project)
        )
        return await run.gates.baseline(scratch, command, project, run.state.last_test_run)
    finally:
        await asyncio.shield(remove_scratch(run, worktree))


def _retrieved(task: asyncio.Task[TestRun | None]) -> None:
    """A measure nobody awaits (its issue left its slot) must not warn at exit."""
    with contextlib.suppress(asyncio.CancelledError):
        task.exception()

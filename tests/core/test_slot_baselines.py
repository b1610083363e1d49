"""A slot's baseline measured beside its session: in a scratch worktree of the commit the
slot started at, so the session's edits in the slot's own worktree are not in it; after
a restart, measured again from that commit; gone with the slot (real git, a real run)."""

from __future__ import annotations

from pathlib import Path

from agent.core.issue import slot_baselines, slots
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from tests.core.runs import sh_git
from tests.core.test_slots import TWO_FUNCTIONS, commit_in, feature_run, opened


def measuring(tmp_path: Path) -> tuple[Run, Path]:
    """A run whose test command notes where it ran and what ``calc.py`` held."""
    run = feature_run(tmp_path)
    seen = tmp_path / "seen.txt"
    with run.store.editing() as state:
        state.test_command = f"pwd >> {seen}; grep -c 'return 1$' calc.py >> {seen}"
    return run, seen


def worktrees_of(run: Run) -> int:
    """The project's worktrees besides its own work tree."""
    return sh_git(run.spec.project_dir, "worktree", "list").count("\n")


async def test_the_baseline_sees_the_start_not_the_sessions_edits(tmp_path: Path) -> None:
    run, seen = measuring(tmp_path)
    folder = await opened(run, 1)
    assert run.state.work(1).baseline is None  # measured beside the session
    (folder / "calc.py").write_text(TWO_FUNCTIONS.replace("return 1", "return 10"))

    baseline = await slot_baselines.settle(run, Seat(run, 1))

    assert baseline is not None and baseline.passed
    ran_in, ones = seen.read_text().split()
    assert ran_in == str(slot_baselines.scratch_for(folder)) and ones == "1"
    assert run.state.work(1).baseline == baseline
    assert not slot_baselines.scratch_for(folder).exists() and worktrees_of(run) == 1
    assert await slot_baselines.settle(run, Seat(run, 1)) == baseline  # recorded: not again
    assert len(seen.read_text().split()) == 2


async def test_a_restarted_slot_measures_from_the_commit_it_started_at(tmp_path: Path) -> None:
    run, seen = measuring(tmp_path)
    folder = await opened(run, 1)
    await run.gates.pending.pop(folder)  # measured, but a kill lost it: not recorded
    commit_in(folder, TWO_FUNCTIONS.replace("return 1", "return 10"), "wip #1")

    baseline = await slot_baselines.settle(run, Seat(run, 1))

    assert baseline is not None and seen.read_text().split()[-1] == "1"
    assert worktrees_of(run) == 1


async def test_a_slot_closed_before_its_baseline_leaves_no_scratch(tmp_path: Path) -> None:
    run, seen = measuring(tmp_path)
    with run.store.editing() as state:
        state.test_command = f"sleep 2; pwd >> {seen}"
    folder = await opened(run, 1)

    await slots.close_slot(run, 1)  # set aside before its session ended

    assert run.gates.pending == {} and not slot_baselines.scratch_for(folder).exists()
    assert worktrees_of(run) == 0


async def test_a_kills_leftover_scratch_is_replaced(tmp_path: Path) -> None:
    run, _ = measuring(tmp_path)
    folder = await opened(run, 1)
    await slot_baselines.settle(run, Seat(run, 1))
    scratch = slot_baselines.scratch_for(folder)
    start = sh_git(folder, "rev-parse", "HEAD")
    sh_git(run.spec.project_dir, "worktree", "add", "-q", "--detach", str(scratch), start)
    (scratch / "stale.txt").write_text("left by a kill\n")
    half_made = slot_baselines.scratch_for(tmp_path / "issue-2")  # git never finished it
    half_made.mkdir()
    await slot_baselines.remove_scratch(run, tmp_path / "issue-2")
    assert not half_made.exists()

    slot_baselines.start(run, folder)
    with run.store.editing() as state:
        state.work(1).baseline = None
    assert (await slot_baselines.settle(run, Seat(run, 1))) is not None
    assert not scratch.exists() and worktrees_of(run) == 1

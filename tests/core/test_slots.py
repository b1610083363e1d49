"""Slots through real git: a worktree per issue off the feature branch, merged back one
at a time; a conflict redone on top of the feature branch (its environment linked
again), a second one for a person; a merge done before a kill recognised, a redo cut
short by one made again; and slot checkpoints with ids of their own."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.core import faultpoints
from agent.core.issue import slots
from agent.core.run.orchestrator import Run
from common import paths
from common.project_env import ProjectEnv
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.schemas.issue_slot import SlotStep
from common.workspace import answer, checkpoints
from tests.core.checkpoint_samples import selection
from tests.core.runs import make_run, sh_git
from tests.core.test_desk import pending_id, until

TWO_FUNCTIONS = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"


def feature_run(tmp_path: Path) -> Run:
    """A run whose project is on its feature branch, with one file of two functions."""
    run = make_run(tmp_path)
    project = run.spec.project_dir
    (project / "calc.py").write_text(TWO_FUNCTIONS)
    sh_git(project, "add", "calc.py")
    sh_git(project, "commit", "-q", "-m", "calc")
    sh_git(project, "checkout", "-q", "-b", run.info.feature_branch)
    return run


def commit_in(folder: Path, text: str, message: str) -> str:
    """A session's work in a slot, committed as the harness would."""
    (folder / "calc.py").write_text(text)
    sh_git(folder, "commit", "-q", "-am", message)
    return sh_git(folder, "rev-parse", "HEAD")


async def opened(run: Run, iid: int) -> Path:
    slots.choose(run, iid)
    work = await slots.open_slot(run, iid)
    assert work.slot is not None
    return Path(work.slot.worktree)


async def test_a_slot_is_a_worktree_on_its_branch_outside_the_project(tmp_path: Path) -> None:
    run = feature_run(tmp_path)
    project = run.spec.project_dir

    folder = await opened(run, 1)

    feature = run.info.feature_branch
    assert folder == paths.worktrees_dir(run.files.root) / "issue-1"
    assert folder.is_relative_to(paths.harness_home())
    assert not folder.resolve().is_relative_to(project.resolve())
    assert sh_git(folder, "rev-parse", "--abbrev-ref", "HEAD") == f"{feature}-issue-1"
    assert sh_git(folder, "rev-parse", "HEAD") == sh_git(project, "rev-parse", feature)
    slot = run.state.work(1).slot
    assert slot is not None and (slot.step, slot.moves, slot.conflicts) == (SlotStep.CODING, 2, 0)
    assert sh_git(project, "rev-parse", "--abbrev-ref", "HEAD") == feature


async def test_a_resumed_slot_keeps_its_worktree_and_commits(tmp_path: Path) -> None:
    run = feature_run(tmp_path)
    folder = await opened(run, 1)
    tip = commit_in(folder, TWO_FUNCTIONS.replace("1\n", "10\n"), "wip #1")
    with run.store.editing() as state:  # killed before the state named the slot
        state.leave_issue(1)

    again = await opened(run, 1)

    assert again == folder
    assert sh_git(folder, "rev-parse", "HEAD") == tip


async def test_two_issues_editing_other_functions_of_one_file_both_merge(tmp_path: Path) -> None:
    run = feature_run(tmp_path)
    project = run.spec.project_dir
    first, second = await opened(run, 1), await opened(run, 2)
    commit_in(first, TWO_FUNCTIONS.replace("return 1", "return 10"), "feat #1")
    commit_in(second, TWO_FUNCTIONS.replace("return 2", "return 20"), "feat #2")
    lock = asyncio.Lock()

    merges = await asyncio.gather(slots.merge_slot(run, 1, lock), slots.merge_slot(run, 2, lock))

    assert [merge.verdict for merge in merges] == ["merged", "merged"]
    assert (project / "calc.py").read_text() == TWO_FUNCTIONS.replace("1\n", "10\n").replace(
        "2\n", "20\n"
    )
    for iid in (1, 2):
        await slots.close_slot(run, iid)
    assert run.state.issues == {}
    assert not first.exists() and not second.exists()
    assert sh_git(project, "worktree", "list").count("\n") == 0  # only the main work tree


async def test_a_conflict_is_redone_on_the_feature_branch_and_then_merges(tmp_path: Path) -> None:
    run = feature_run(tmp_path)
    project = run.spec.project_dir
    feature = run.info.feature_branch
    first, second = await opened(run, 1), await opened(run, 2)
    commit_in(first, TWO_FUNCTIONS.replace("return 1", "return 10"), "feat #1")
    lost = commit_in(second, TWO_FUNCTIONS.replace("return 1", "return 100"), "feat #2")
    with run.store.editing() as state:
        state.work(2).commits = [lost]
        state.harness_commits = [lost]
    lock = asyncio.Lock()
    assert (await slots.merge_slot(run, 1, lock)).verdict == "merged"
    before = sh_git(project, "rev-parse", feature)

    redo = await slots.merge_slot(run, 2, lock)

    assert redo.verdict == "redo" and redo.outcome.conflicts == ("calc.py",)
    assert sh_git(project, "rev-parse", feature) == before, "the aborted merge left no trace"
    assert sh_git(project, "status", "--porcelain") == ""
    work = run.state.work(2)
    assert work.slot is not None
    assert (work.slot.step, work.slot.conflicts) == (SlotStep.CODING, 1)
    assert work.feedback_source == "harness" and work.feedback is not None
    assert "- calc.py" in work.feedback and "return 100" in work.feedback
    assert work.commits == [] and run.state.harness_commits == []
    assert sh_git(second, "rev-parse", "HEAD") == before, "reset onto the updated feature branch"

    commit_in(second, TWO_FUNCTIONS.replace("return 1", "return 100"), "feat #2 again")
    assert (await slots.merge_slot(run, 2, lock)).verdict == "merged"
    assert "return 100" in (project / "calc.py").read_text()


async def test_a_second_conflict_asks_a_person_and_leaves_the_feature_branch(
    tmp_path: Path,
) -> None:
    run = feature_run(tmp_path)
    project = run.spec.project_dir
    first, second = await opened(run, 1), await opened(run, 2)
    commit_in(first, TWO_FUNCTIONS.replace("return 1", "return 10"), "feat #1")
    commit_in(second, TWO_FUNCTIONS.replace("return 1", "return 100"), "feat #2")
    with run.store.editing() as state:
        slot = state.work(2).slot
        assert slot is not None
        slot.conflicts = 1  # redone once already
    lock = asyncio.Lock()
    await slots.merge_slot(run, 1, lock)
    before = sh_git(project, "rev-parse", "HEAD")

    asked = await slots.merge_slot(run, 2, lock)
    moves = run.state.work(2).slot.moves  # type: ignore[union-attr]
    again = await slots.merge_slot(run, 2, lock)  # a resumed agent merges again

    assert asked.verdict == again.verdict == "ask" and "return 100" in asked.outcome.excerpt
    slot = run.state.work(2).slot
    # Counted with the person's answer: merging again leaves count and moves (the
    # checkpoint's id) as they were.
    assert slot is not None and (slot.step, slot.conflicts) == (SlotStep.MERGING, 1)
    assert slot.moves == moves
    assert sh_git(project, "rev-parse", "HEAD") == before
    assert sh_git(second, "log", "-1", "--format=%s") == "feat #2", "its work is kept for a person"


async def test_a_merge_made_before_a_kill_is_not_made_again(tmp_path: Path) -> None:
    run = feature_run(tmp_path)
    project = run.spec.project_dir
    folder = await opened(run, 1)
    commit_in(folder, TWO_FUNCTIONS.replace("return 1", "return 10"), "feat #1")
    lock = asyncio.Lock()
    await slots.merge_slot(run, 1, lock)
    merged_at = sh_git(project, "rev-parse", "HEAD")

    again = await slots.merge_slot(run, 1, lock)  # resumed at the merging step

    assert again.verdict == "merged" and again.outcome.commit == merged_at
    assert sh_git(project, "rev-parse", "HEAD") == merged_at


async def test_slot_checkpoints_at_once_get_ids_of_their_own(tmp_path: Path) -> None:
    run = feature_run(tmp_path)
    await opened(run, 1)
    await opened(run, 2)

    async def build(checkpoint_id: str) -> Checkpoint:
        return selection(checkpoint_id)

    one = asyncio.create_task(run.desk.ask(CheckpointType.ISSUE_SELECTION, build, issue=1))
    two = asyncio.create_task(run.desk.ask(CheckpointType.ISSUE_SELECTION, build, issue=2))
    await until(lambda: pending_id(run) == "issue_selection-issue1-2")
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    await until(lambda: pending_id(run) == "issue_selection-issue2-2")
    await asyncio.to_thread(answer.approve, run.files.root, None, None)

    ids = [(await asyncio.wait_for(task, 10)).id for task in (one, two)]
    assert ids == ["issue_selection-issue1-2", "issue_selection-issue2-2"]
    assert [entry.id for entry in checkpoints.history(run.files)][-2:] == ids


async def test_a_slots_decision_another_slot_asked_over_is_found_after_a_kill(
    tmp_path: Path,
) -> None:
    """#1's checkpoint is decided, then #2's takes the checkpoint file, then the agent is
    killed before #1's decision took effect: asked again (its slot has not moved), #1
    gets its logged decision back, checked as signed, and nobody is asked twice."""
    run = feature_run(tmp_path)
    await opened(run, 1)
    await opened(run, 2)
    built: list[str] = []

    async def build(checkpoint_id: str) -> Checkpoint:
        built.append(checkpoint_id)
        return selection(checkpoint_id)

    first = asyncio.create_task(run.desk.ask(CheckpointType.ISSUE_SELECTION, build, issue=1))
    await until(lambda: pending_id(run) == "issue_selection-issue1-2")
    await asyncio.to_thread(answer.reject, run.files.root, "later")
    await asyncio.wait_for(first, 10)
    second = asyncio.create_task(run.desk.ask(CheckpointType.ISSUE_SELECTION, build, issue=2))
    await until(lambda: pending_id(run) == "issue_selection-issue2-2")
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    await asyncio.wait_for(second, 10)

    again = await asyncio.wait_for(run.desk.ask(CheckpointType.ISSUE_SELECTION, build, issue=1), 10)

    assert built == ["issue_selection-issue1-2", "issue_selection-issue2-2"]
    assert again.id == "issue_selection-issue1-2"
    assert again.decision is not None and not again.decision.approved
    assert again.decision.reason == "later"


async def test_a_redo_gives_the_worktree_its_environment_link_again(tmp_path: Path) -> None:
    """The reset's ``git clean -fdx`` removes the ignored ``.venv`` link with the rest:
    without it again, the redone issue's baseline and gates could not run its tests."""
    run = feature_run(tmp_path)
    project = run.spec.project_dir
    (project / ".gitignore").write_text(".venv/\n")
    sh_git(project, "add", ".gitignore")
    sh_git(project, "commit", "-q", "-m", "ignore the venv")
    (project / ".venv" / "bin").mkdir(parents=True)
    run.project_env = ProjectEnv(
        kind="project venv .venv",
        test_command=None,
        variables={"VIRTUAL_ENV": str(project / ".venv")},
    )
    first, second = await opened(run, 1), await opened(run, 2)
    assert (second / ".venv").is_symlink()
    commit_in(first, TWO_FUNCTIONS.replace("return 1", "return 10"), "feat #1")
    commit_in(second, TWO_FUNCTIONS.replace("return 1", "return 100"), "feat #2")
    lock = asyncio.Lock()
    await slots.merge_slot(run, 1, lock)

    assert (await slots.merge_slot(run, 2, lock)).verdict == "redo"

    assert (second / ".venv").is_symlink()
    assert (second / ".venv").resolve() == (project / ".venv").resolve()


class Killed(Exception):
    """The agent dies here (in a test: nothing after it runs)."""


async def test_a_redo_cut_short_after_the_reset_is_redone_never_taken_as_merged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed at ``slot.restarted``: the branch is reset onto the feature branch (so git
    finds it "merged"), the state still names the issue's commit and its merging step.
    The restarted agent sees the commit is not in the feature branch and redoes."""
    run = feature_run(tmp_path)
    project = run.spec.project_dir
    feature = run.info.feature_branch
    first, second = await opened(run, 1), await opened(run, 2)
    commit_in(first, TWO_FUNCTIONS.replace("return 1", "return 10"), "feat #1")
    lost = commit_in(second, TWO_FUNCTIONS.replace("return 1", "return 100"), "feat #2")
    with run.store.editing() as state:
        state.work(2).commits = [lost]
    lock = asyncio.Lock()
    await slots.merge_slot(run, 1, lock)
    real = faultpoints.reached

    def killed(name: str) -> None:
        real(name)
        if name == "slot.restarted":
            raise Killed(name)

    monkeypatch.setattr(faultpoints, "reached", killed)
    with pytest.raises(Killed):
        await slots.merge_slot(run, 2, lock)
    monkeypatch.setattr(faultpoints, "reached", real)
    assert sh_git(second, "rev-parse", "HEAD") == sh_git(project, "rev-parse", feature)
    assert run.state.work(2).slot.step is SlotStep.MERGING  # type: ignore[union-attr]

    again = await slots.merge_slot(run, 2, lock)

    assert again.verdict == "redo" and again.outcome.conflicts == ("calc.py",)
    work = run.state.work(2)
    assert work.slot is not None and (work.slot.step, work.slot.conflicts) == (SlotStep.CODING, 1)
    assert work.feedback is not None and "return 100" in work.feedback
    merges = sh_git(project, "log", "--merges", "--format=%s", feature).splitlines()
    assert merges == [f"Merge issue #1 ({feature}-issue-1) into {feature}"], "#2 never merged"
    assert "return 100" not in (project / "calc.py").read_text()

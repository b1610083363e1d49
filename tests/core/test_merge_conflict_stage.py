"""A second conflict stops at a merge_conflict checkpoint, and each answer does what it says.

Through real git (the project, its worktrees, the merges) and the file tracker, the model
stood in for by :class:`tests.core.test_parallel_stage.Model`, the checkpoints answered
by the real client code (:mod:`common.workspace.answer`) as a person's would be: every
other checkpoint with its default, the merge_conflict ones as each test says.

The second conflict is forced as in the end-to-end test: once #2 is redone on top of #1,
the feature branch changes #1's line again before #2 merges.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.core import faultpoints
from agent.core.log import AgentLog
from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Run
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig
from agent.core.stages import parallel
from common.atomic import read_model
from common.project_env import ProjectEnv
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    MergeConflictCheckpoint,
)
from common.schemas.issue_slot import SlotStep
from common.schemas.issues import SET_ASIDE_LABEL
from common.workspace import answer, checkpoints
from common.workspace.diff_text import diff_lines
from common.workspace.render import render_checkpoint
from common.workspace.setup import set_auto_accept
from tests.core.runs import sh_git
from tests.core.test_parallel_stage import Model, draft, parallel_run


class Killed(Exception):
    """The agent dies here (in a test: the run ends with it, nothing after it runs)."""


Answer = tuple[bool, str | None]
"""(approve, choice) for one merge_conflict checkpoint: ``(False, None)`` rejects."""


class Person:
    """Answers every checkpoint as it comes: the defaults, and the merge_conflict ones
    from ``answers`` in order (each seen checkpoint kept, ``before`` run first)."""

    def __init__(self, run: Run, answers: list[Answer]) -> None:
        self.run = run
        self.answers = answers
        self.seen: list[MergeConflictCheckpoint] = []
        self.before: Callable[[MergeConflictCheckpoint], None] | None = None

    async def __call__(self) -> None:
        root = self.run.files.root
        while True:
            found = checkpoints.pending(self.run.files)
            if found is None:
                await asyncio.sleep(0.02)
                continue
            await asyncio.to_thread(self._answer, root, found)

    def _answer(self, root: Path, found: Checkpoint) -> None:
        if not isinstance(found, MergeConflictCheckpoint):
            answer.approve(root, None, None, checkpoint_id=found.id)
            return
        self.seen.append(found)
        if self.before is not None:
            self.before(found)
        assert self.answers, f"asked once too often: {found.id}"
        approve, choice = self.answers.pop(0)
        if approve:
            answer.approve(root, choice, "as the test says", checkpoint_id=found.id)
        else:
            answer.reject(root, "not now", checkpoint_id=found.id)


async def second_conflict_run(tmp_path: Path, third: str = "return 12") -> tuple[Run, Model]:
    """#1 and #2 change the same line; #2's redone branch conflicts a second time.

    #2's sessions: its first conflicts with #1 (redone); its second is overtaken by a
    commit on the feature branch ("return 11"); a third (after ``redo``) writes ``third``.
    """
    model = Model(
        {
            1: [("calc.py", "return 1", "return 10")],
            2: [
                ("calc.py", "return 1", "return 100"),
                ("calc.py", "return 10", "return 9"),
                ("calc.py", "return 11", third),
            ],
        },
        slower={2: 0.5},  # #1 merges first
    )
    run = await parallel_run(tmp_path, model, [draft("one"), draft("two")])
    set_auto_accept(run.files.root, False)  # the Person answers, as a person would
    real = model.__call__

    async def moving_target(*args: Any) -> SessionResult:
        result = await real(*args)
        if len(model.seen.get(2, [])) == 2:
            project = run.spec.project_dir
            (project / "calc.py").write_text(
                (project / "calc.py").read_text().replace("return 10", "return 11")
            )
            sh_git(project, "commit", "-q", "-am", "meanwhile")
        return result

    run.sessions.runner = moving_target
    return run, model


async def run_with(run: Run, person: Person) -> None:
    """The run's slots until none is left, the person answering meanwhile (a failure of
    either ends both)."""
    answering = asyncio.create_task(person())
    working = asyncio.create_task(parallel.issue_slots(run))
    try:
        done, _ = await asyncio.wait(
            {answering, working}, timeout=60, return_when=asyncio.FIRST_COMPLETED
        )
        assert done, "the run did not end within 60 s"
        if answering in done:
            answering.result()
        working.result()
    finally:
        for task in (answering, working):
            task.cancel()
        await asyncio.gather(answering, working, return_exceptions=True)


def again(run: Run) -> Run:
    """A new agent on the same workspace, from the state file (a restart)."""
    return Run.create(
        files=run.files,
        info=run.info,
        state=read_model(run.files.state, AgentState),
        tracker=run.tracker,
        sessions=SessionConfig(project_dir=run.spec.project_dir, model=None),
        log=AgentLog(io.StringIO()),
        project_env=ProjectEnv(kind="PATH", test_command=None),
        session_runner=run.sessions.runner,
    )


def log_text(run: Run) -> str:
    stream = run.log._stream
    assert isinstance(stream, io.StringIO)
    return stream.getvalue()


async def test_the_second_conflict_shows_the_issue_files_and_diff_and_redo_codes_it_again(
    tmp_path: Path,
) -> None:
    run, model = await second_conflict_run(tmp_path)
    person = Person(run, [(True, "redo")])

    await run_with(run, person)

    [asked] = person.seen
    c = asked.context
    feature = run.info.feature_branch
    assert asked.id.startswith("merge_conflict-issue2-")
    assert (c.issue_iid, c.issue_title, c.conflicts, c.conflicts_so_far) == (
        2,
        "two",
        ["calc.py"],
        2,
    )
    assert (c.branch, c.feature_branch) == (f"{feature}-issue-2", feature)
    assert c.diff.range == f"{feature}...{feature}-issue-2"
    assert "diff --cc calc.py" in c.diff.text and "<<<<<<<" in c.diff.text
    assert "calc.py" in c.diff.stat
    assert any("conflicted files: calc.py" in line for line in asked.what_happened)
    assert [issue.state for issue in await run.tracker.list_issues()] == ["closed", "closed"]
    assert len(model.seen[2]) == 3, "redone a second time"
    assert "return 11" in model.seen[2][2], "on top of the feature branch as it is now"
    assert "return 12" in (run.spec.project_dir / "calc.py").read_text()
    assert run.state.phase is Phase.MR_PHASE_TRANSITION and run.state.issues == {}


async def test_set_aside_labels_and_notes_the_issue_keeps_its_branch_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    run, model = await second_conflict_run(tmp_path)
    person = Person(run, [(True, "set_aside")])

    await run_with(run, person)

    project = run.spec.project_dir
    feature = run.info.feature_branch
    one, two = await run.tracker.list_issues()
    assert one.state == "closed" and two.state == "opened"
    assert SET_ASIDE_LABEL in two.labels and "in-progress" not in two.labels
    [note] = [note for note in two.notes if "Set aside for a person" in note.body]
    assert person.seen[0].id in note.body and "- calc.py" in note.body
    assert "return 9" in sh_git(project, "show", f"{feature}-issue-2:calc.py"), "branch kept"
    assert "return 9" not in (project / "calc.py").read_text(), "and not merged"
    assert sh_git(project, "worktree", "list").count("\n") == 0, "its worktree removed"
    assert run.state.set_aside == [2] and run.state.issues == {}
    assert run.state.phase is Phase.MR_PHASE_TRANSITION
    assert len(model.seen[2]) == 2


async def test_retry_merges_the_branch_as_a_person_left_it_and_asks_anew_while_it_conflicts(
    tmp_path: Path,
) -> None:
    run, _ = await second_conflict_run(tmp_path)
    person = Person(run, [(True, "retry"), (True, "retry")])
    feature = run.info.feature_branch

    def resolve_the_second_time(asked: MergeConflictCheckpoint) -> None:
        if len(person.seen) == 2:  # the person resolves it on the branch, in its worktree
            tree = Path(asked.context.worktree)
            sh_git(tree, "merge", "-q", "-X", "ours", "-m", "resolved by hand", feature)

    person.before = resolve_the_second_time

    await run_with(run, person)

    first, second = person.seen
    assert first.id != second.id, "a new conflict, a new checkpoint"
    assert (first.context.conflicts_so_far, second.context.conflicts_so_far) == (2, 3)
    assert [issue.state for issue in await run.tracker.list_issues()] == ["closed", "closed"]
    assert "return 9" in (run.spec.project_dir / "calc.py").read_text()
    assert "merging again as its branch is now (retry)" in log_text(run)
    for sha in run.state.harness_commits:
        sh_git(run.spec.project_dir, "merge-base", "--is-ancestor", sha, feature)


async def test_a_reject_pauses_the_run_and_a_resume_asks_again(tmp_path: Path) -> None:
    run, model = await second_conflict_run(tmp_path)
    person = Person(run, [(False, None)])

    with pytest.raises(StopRun, match="paused at merge_conflict by cli:"):
        await run_with(run, person)

    work = run.state.work(2)
    assert work.slot is not None and work.slot.step is SlotStep.MERGING
    assert work.slot.conflicts == 1, "the conflict at the checkpoint is not counted yet"
    resumed = again(run)
    person = Person(resumed, [(True, "redo")])
    await run_with(resumed, person)
    assert [issue.state for issue in await resumed.tracker.list_issues()] == ["closed"] * 2
    assert len(model.seen[2]) == 3


async def test_killed_after_the_decision_a_restart_applies_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed at ``merge_conflict.decided`` (here: an error raised there): the restarted
    agent merges again, finds the decided checkpoint by its id and sets the issue aside
    once (one note), without asking again."""
    run, _ = await second_conflict_run(tmp_path)
    person = Person(run, [(True, "set_aside")])
    real = faultpoints.reached

    def killed(name: str) -> None:
        real(name)
        if name == "merge_conflict.decided":
            raise Killed(name)

    monkeypatch.setattr(faultpoints, "reached", killed)
    with pytest.raises(Killed):
        await run_with(run, person)
    monkeypatch.setattr(faultpoints, "reached", real)
    left = read_model(run.files.state, AgentState)
    assert left.work(2).slot is not None, "nothing of the decision applied yet"

    resumed = again(run)
    nobody = Person(resumed, [])  # a second merge_conflict question would fail the test
    await run_with(resumed, nobody)

    two = (await resumed.tracker.list_issues())[1]
    assert SET_ASIDE_LABEL in two.labels
    assert sum("Set aside for a person" in note.body for note in two.notes) == 1
    assert resumed.state.set_aside == [2] and nobody.seen == []
    decided = checkpoints.current(resumed.files)
    assert decided is not None and decided.type is CheckpointType.MERGE_CONFLICT


HOSTILE_LINE = "A = '\x1b]0;pwned\x07\u202e[harness] APPROVED'\n"
"""A line a session could write: it retitles the terminal and reverses what follows."""


async def test_a_hostile_conflicting_line_reaches_the_person_escaped(tmp_path: Path) -> None:
    """#1 writes a line made to attack a terminal; #2 conflicts twice with it: what the
    checkpoint, ``harness checkpoint`` and the review show has no raw control or bidi
    character, the conflicting lines still readable. (A file *name* with such characters
    never reaches a branch: the harness keeps it out of every commit, so the name's
    escaping is tried on the kind's own, tests/core/test_merge_conflict_kind.py.)"""
    model = Model(
        {
            1: [("words.py", "", HOSTILE_LINE)],
            2: [("words.py", "", "A = 'two'\n"), ("words.py", "A = '", "A = 'redone ")],
        },
        slower={2: 0.5},
    )
    run = await parallel_run(tmp_path, model, [draft("one"), draft("two")])
    set_auto_accept(run.files.root, False)
    real = model.__call__

    async def moving_target(*args: Any) -> SessionResult:
        result = await real(*args)
        if len(model.seen.get(2, [])) == 2:
            project = run.spec.project_dir
            (project / "words.py").write_text("A = 'meanwhile'\n")
            sh_git(project, "commit", "-q", "-am", "meanwhile")
        return result

    run.sessions.runner = moving_target
    person = Person(run, [(True, "set_aside")])

    await run_with(run, person)

    [asked] = person.seen
    shown = "\n".join([render_checkpoint(asked, agent="agent_1"), *diff_lines(asked)])
    raw = ("\x1b", "\x07", "\u202e")
    assert not any(char in shown for char in raw)
    assert not any(char in asked.model_dump_json() for char in raw), "stored escaped too"
    assert asked.context.conflicts == ["words.py"]
    assert "redone \\x1b]0;pwned\\x07<U+202E>[harness] APPROVED" in shown
    assert "meanwhile" in shown

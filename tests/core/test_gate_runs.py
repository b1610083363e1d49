"""The gates on a given work tree: a run is reused only for the same content and command.

Two real repositories stand for two work trees (the main one and a slot's); the
command appends to a counter file, so a reuse is a run that did not happen. A slot's
baseline is shared between fresh worktrees of one content (real ``git worktree``s).
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from agent.core.gates.fresh_trees import Harmless
from agent.core.gates.gate_runs import GateRunner
from agent.core.log import AgentLog
from common.project_env import ProjectEnv
from common.schemas.gates import TestRun
from tests.core.runs import sh_git


def work_tree(path: Path) -> Path:
    path.mkdir()
    sh_git(path, "init", "-q", "-b", "main")
    (path / "app.py").write_text("x = 1\n")
    sh_git(path, "add", "app.py")
    sh_git(path, "commit", "-q", "-m", "x")
    return path


@pytest.fixture
def gates() -> GateRunner:
    return GateRunner(ProjectEnv("PATH", None), AgentLog(io.StringIO()))


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


async def test_each_work_tree_is_tested_on_its_own(tmp_path: Path, gates: GateRunner) -> None:
    main, slot = work_tree(tmp_path / "main"), work_tree(tmp_path / "slot")
    (slot / "app.py").write_text("x = 2\n")  # the slot's issue changed it, uncommitted
    counter = tmp_path / "runs.txt"
    command = f"echo ran >> {counter}"

    on_main = await gates.tests(main, command, None)
    assert runs(counter) == 1 and on_main.passed and on_main.tree
    assert await gates.tests(main, command, on_main) is on_main  # unchanged: reused
    on_slot = await gates.tests(slot, command, on_main)  # another content: run
    assert runs(counter) == 2 and on_slot.tree != on_main.tree
    assert await gates.tests(slot, command, on_slot) is on_slot
    assert runs(counter) == 2

    (main / "app.py").write_text("x = 3\n")
    again = await gates.tests(main, command, on_main)
    assert runs(counter) == 3 and again.tree != on_main.tree
    other = await gates.tests(main, f"{command} # other", again)  # another command: run
    assert runs(counter) == 4 and other.command.endswith("# other")


async def test_checks_reuse_each_check_on_its_own(tmp_path: Path, gates: GateRunner) -> None:
    tree = work_tree(tmp_path / "tree")
    counter = tmp_path / "checks.txt"
    commands = {"lint": f"echo lint >> {counter}", "types": f"echo types >> {counter}; exit 1"}

    first = await gates.checks(tree, commands, {})
    assert runs(counter) == 2 and first["lint"].passed and not first["types"].passed
    kept: dict[str, TestRun] = {"lint": first["lint"]}
    second = await gates.checks(tree, commands, kept)  # only "types" has no run to reuse
    assert runs(counter) == 3 and second["lint"] is first["lint"]
    assert await gates.checks(tree, {}, first) == {}


def project_with_env(path: Path) -> Path:
    """A work tree whose ``.venv`` (ignored) is the project's environment."""
    tree = work_tree(path)
    (tree / ".gitignore").write_text(".venv\n.env\n")
    sh_git(tree, "add", ".gitignore")
    sh_git(tree, "commit", "-q", "-m", "ignore")
    (tree / ".venv").mkdir()
    return tree


def slot_of(project: Path, name: str) -> Path:
    """A slot's worktree of the project's commit, its environment linked in."""
    tree = project.parent / name
    sh_git(project, "worktree", "add", "-q", "-b", name, str(tree), "main")
    (tree / ".venv").symlink_to(project / ".venv", target_is_directory=True)
    return tree


def sharing(project: Path) -> GateRunner:
    return GateRunner(
        ProjectEnv("PATH", None),
        AgentLog(io.StringIO()),
        harmless=Harmless(project, (project / ".venv",)),
    )


async def test_slots_opened_on_one_commit_run_the_baseline_once(tmp_path: Path) -> None:
    project = project_with_env(tmp_path / "p")
    gates = sharing(project)
    counter = tmp_path / "runs.txt"
    command = f"echo ran >> {counter}; sleep 0.3"
    slots = [slot_of(project, f"s{n}") for n in range(3)]

    results = await asyncio.gather(*(gates.baseline(s, command, project, None) for s in slots))
    assert runs(counter) == 1  # the others waited for the one in flight
    assert all(result is results[0] for result in results) and results[0].passed

    another = slot_of(project, "s3")  # later, the same content: no run
    assert await gates.baseline(another, command, project, None) is results[0]
    assert runs(counter) == 1


async def test_the_projects_run_on_the_same_content_is_the_slots_baseline(
    tmp_path: Path,
) -> None:
    project = project_with_env(tmp_path / "p")
    gates = sharing(project)
    counter = tmp_path / "runs.txt"
    command = f"echo ran >> {counter}"
    on_project = await gates.tests(project, command, None)
    assert runs(counter) == 1

    assert await gates.baseline(slot_of(project, "s1"), command, project, on_project) is on_project
    assert runs(counter) == 1


async def test_what_only_the_project_has_keeps_its_run_its_own(tmp_path: Path) -> None:
    project = project_with_env(tmp_path / "p")
    gates = sharing(project)
    counter = tmp_path / "runs.txt"
    command = f"test -f .env; echo $? >> {counter}"
    (project / ".env").write_text("TOKEN=1\n")  # ignored: a worktree will not have it
    on_project = await gates.tests(project, command, None)

    in_slot = await gates.baseline(slot_of(project, "s1"), command, project, on_project)
    assert in_slot is not on_project and runs(counter) == 2
    assert counter.read_text().split() == ["0", "1"]  # what each tree really held


async def test_a_slot_that_is_not_fresh_runs_its_own(tmp_path: Path) -> None:
    project = project_with_env(tmp_path / "p")
    gates = sharing(project)
    counter = tmp_path / "runs.txt"
    command = f"echo ran >> {counter}"
    first, second = slot_of(project, "s1"), slot_of(project, "s2")
    (second / ".env").write_text("TOKEN=1\n")
    assert (await gates.baseline(first, command, project, None)).passed
    assert (await gates.baseline(second, command, project, None)).passed
    assert runs(counter) == 2


async def test_a_stopped_baseline_leaves_the_waiting_slot_to_run_its_own(tmp_path: Path) -> None:
    project = project_with_env(tmp_path / "p")
    gates = sharing(project)
    counter = tmp_path / "runs.txt"
    command = f"echo ran >> {counter}; sleep 0.5"
    first = asyncio.create_task(gates.baseline(slot_of(project, "s1"), command, project, None))
    for _ in range(1000):  # until the first one's run has started
        if runs(counter):
            break
        await asyncio.sleep(0.01)
    second = asyncio.create_task(gates.baseline(slot_of(project, "s2"), command, project, None))
    await asyncio.sleep(0.1)
    assert runs(counter) == 1  # the second waits for it
    first.cancel()

    assert (await second).passed
    assert first.cancelled() and runs(counter) == 2

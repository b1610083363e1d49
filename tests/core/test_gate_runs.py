"""The gates on a given work tree: a run is reused only for the same content and command.

Two real repositories stand for two work trees (the main one and a slot's); the
command appends to a counter file, so a reuse is a run that did not happen.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.core.gate_runs import GateRunner
from agent.core.log import AgentLog
from agent.core.project_env import ProjectEnv
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

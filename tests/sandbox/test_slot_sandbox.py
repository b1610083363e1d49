"""A slot's sandbox is bound to its worktree: writable there, the project's work tree not in
it at all, the worktree's ``.git`` file and git folders read-only; the project's sandbox
is as it was. Real bubblewrap, real git worktrees."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import SessionSandbox, session_sandbox
from common.workspace import worktrees

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")

PROBE = """
TREE="$1" PROJECT="$2"
try_write() { if ( : > "$1" ) 2>/dev/null; then echo "$2 writable"; else echo "$2 refused"; fi; }
try_write "$TREE/new.txt" worktree
try_write "$TREE/.git" dot-git
if [ -e "$PROJECT/calc.py" ]; then echo "project seen"; else echo "project absent"; fi
git -C "$TREE" log -1 --format=%s 2>/dev/null || echo "git unreadable"
"""


def sh_git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project_and_tree(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    (project / "calc.py").write_text("x = 1\n")
    sh_git(project, "add", "calc.py")
    sh_git(project, "commit", "-q", "-m", "calc")
    tree = tmp_path / "worktrees" / "issue-1"
    worktrees.add(project, tree, "main-issue-1", "main")
    return project, tree


async def probe_in(
    box: SessionSandbox, work_tree: Path | None, project: Path, tree: Path
) -> list[str]:
    # The paths as arguments: the sandbox keeps no variable of its own choosing.
    argv = box.wrap(["/bin/sh", "-c", PROBE, "probe", str(tree), str(project)], work_tree)
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=work_tree or project,
        env={"PATH": "/usr/bin:/bin"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    return out.decode().splitlines()


async def test_a_slots_gates_see_its_worktree_and_not_the_project(
    project_and_tree: tuple[Path, Path],
) -> None:
    project, tree = project_and_tree
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {}) as box:
        seen = await probe_in(box, tree, project, tree)

    assert seen == ["worktree writable", "dot-git refused", "project absent", "calc"]
    assert (tree / "new.txt").exists()


async def test_the_projects_own_sandbox_is_as_it_was(project_and_tree: tuple[Path, Path]) -> None:
    project, tree = project_and_tree
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {}) as box:
        assert box.in_work_tree(None) is box.plan
        assert box.in_work_tree(project) is box.plan
        seen = await probe_in(box, None, project, tree)

    assert seen[2] == "project seen"
    assert seen[:2] == ["worktree refused", "dot-git refused"], "no slot's worktree in it"


async def test_a_slots_own_entrance_is_bound_to_its_worktree(
    project_and_tree: tuple[Path, Path],
) -> None:
    project, tree = project_and_tree
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}) as box:
        own = box.own_entrance(tree)
        assert own.plan.project_dir == tree
        assert own.plan.hidden_in_project == ()
        assert (tree / ".git") in own.plan.read_only_in_project
        assert project not in own.plan.read_only
        wrapper = own.cli_path.read_text()
        assert f"--bind {tree} {tree}" in wrapper
        assert f"--bind {project} {project}" not in wrapper, "the project is not in it"

"""Gates run the interpreter the harness recorded, never a link the model can replace.

Issue 26, finding 5: in a slot the model replaced its worktree's ``.venv`` link by a
folder whose ``bin/python`` prints "99 passed" and exits 0; the gate ran the test
command ``.venv/bin/python -m pytest -q`` in the worktree and accepted a broken issue.
The project venv's folder is recorded as it resolved at project_verification
(:attr:`ProjectEnv.root`); the gate names its interpreter by that path, and its
``VIRTUAL_ENV`` and ``PATH`` too. Real files and processes: fake interpreters are shell
scripts, each saying who it is.
"""

from __future__ import annotations

import io
from pathlib import Path

from agent.core.gates.gate_runs import GateRunner
from agent.core.git import hidden_writes
from agent.core.issue import slot_links
from agent.core.log import AgentLog
from common.project_env import ProjectEnv, detect, pinned
from tests.core.runs import sh_git

COMMAND = ".venv/bin/python -m pytest -q"


def interpreter(folder: Path, says: str) -> None:
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(f'#!/bin/sh\necho "{says} $VIRTUAL_ENV"\n[ "{says}" = real ]\n')
    python.chmod(0o755)


def linked_project(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose ``.venv`` links into an environment cache (the demo's layout)."""
    env = tmp_path / "envs" / "demo-1"
    interpreter(env, "real")
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / ".venv").symlink_to(env, target_is_directory=True)
    (project / ".gitignore").write_text(".venv\n")
    sh_git(project, "init", "-q", "-b", "main")
    sh_git(project, "add", ".gitignore")
    sh_git(project, "commit", "-q", "-m", "init")
    return project, env


def test_detection_records_the_venv_as_it_resolves(tmp_path: Path) -> None:
    project, env = linked_project(tmp_path)

    found = detect(project, {"PATH": "/usr/bin"})

    assert found.root == str(env)
    assert found.variables["VIRTUAL_ENV"] == str(project / ".venv")
    kept, _line = pinned(found, found.kind, found.variables, COMMAND, str(env))
    assert kept.root == str(env)
    older, _line = pinned(found, found.kind, found.variables, COMMAND)  # a state before it
    assert older.root == str(env)


def test_the_gate_command_and_environment_name_the_recorded_venv(tmp_path: Path) -> None:
    project = tmp_path / "project"
    venv = str(project / ".venv")
    variables = {"PATH": f"{venv}/bin:/usr/bin", "VIRTUAL_ENV": venv}
    env = ProjectEnv("project venv .venv", COMMAND, variables, root="/e/1")

    assert env.gate_command(COMMAND, project) == "/e/1/bin/python -m pytest -q"
    assert env.gate_command("  ./.venv/bin/pytest -x", project) == "/e/1/bin/pytest -x"
    for kept in ("python -m pytest", "'.venv/bin/python' -m pytest", "/usr/bin/python3 -m x"):
        assert env.gate_command(kept, project) == kept
    assert env.gate_command("venvs/.venv/bin/python -q", project) == "venvs/.venv/bin/python -q"
    assert env.gate_command(".venv-other/bin/python", project) == ".venv-other/bin/python"
    gate = env.gate_environ({"PATH": "/ignored", "HOME": "/h"})
    assert gate["VIRTUAL_ENV"] == "/e/1"
    assert gate["PATH"] == "/e/1/bin:/usr/bin"
    assert ProjectEnv("PATH", "pytest", {"PATH": "/usr/bin"}).gate_command("x/y", project) == "x/y"


async def test_a_slots_replaced_venv_link_does_not_answer_for_the_tests(tmp_path: Path) -> None:
    project, env = linked_project(tmp_path)
    recorded = detect(project, {"PATH": "/usr/bin:/bin"})
    slot = tmp_path / "worktrees" / "issue-1"
    sh_git(project, "worktree", "add", "-q", "-b", "issue-1", str(slot))
    interpreter(slot / ".venv", "99 passed (forged)")  # the model's, in place of the link
    gates = GateRunner(recorded, AgentLog(io.StringIO()), project=project)

    run = await gates.tests(slot, COMMAND, None)

    assert run.passed, run.output_tail
    assert run.output_tail == f"real {env}"
    assert run.command == COMMAND, "recorded as the command the person approved"


async def test_the_projects_own_link_replaced_does_not_answer_either(tmp_path: Path) -> None:
    project, env = linked_project(tmp_path)
    recorded = detect(project, {"PATH": "/usr/bin:/bin"})
    (project / ".venv").unlink()
    interpreter(project / ".venv", "forged")
    gates = GateRunner(recorded, AgentLog(io.StringIO()), project=project)

    run = await gates.tests(project, COMMAND, None)

    assert run.output_tail == f"real {env}"


def test_a_replaced_environment_is_a_finding_for_a_person(tmp_path: Path) -> None:
    project, env = linked_project(tmp_path)
    places = (Path(".venv"),)
    assert slot_links.moved(project, places, str(env)) == []

    (project / ".venv").unlink()
    interpreter(project / ".venv", "forged")

    (line,) = slot_links.moved(project, places, str(env))
    assert line.startswith(".venv: the project's environment here no longer leads to the ")
    assert slot_links.moved(project, places, None) == []


def test_ignored_writes_that_the_gates_run_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "data.csv").write_text("1\n")
    (tmp_path / "tool").write_text("#!/bin/sh\n")
    (tmp_path / "tool").chmod(0o755)
    (tmp_path / "link").symlink_to("/etc")
    env = frozenset({b".venv"})

    assert hidden_writes.runs_in_gates(tmp_path, b".venv", env) == hidden_writes.ENVIRONMENT_REASON
    venv_file = b".venv/lib/python3.11/site-packages/sitecustomize.py"
    assert hidden_writes.runs_in_gates(tmp_path, venv_file, env) == (
        hidden_writes.ENVIRONMENT_REASON
    )
    for runs in (b"hidden/conftest.py", b"build/x.so", b"pytest.ini", b"tool", b"link"):
        assert hidden_writes.runs_in_gates(tmp_path, runs, env) == hidden_writes.RUNS_REASON, runs
    for data in (b"data.csv", b"gone.log", b".venv-notes.txt"):
        assert hidden_writes.runs_in_gates(tmp_path, data, env) is None, data

"""The harness's own test command is allowed as written, in every layout (issue 26, item 6).

The command the harness resolved names its interpreter where the layout puts it: a
user's Python outside the project (no ``.venv``), the project's own ``.venv``, a
``.venv`` linked into the environment cache (the demo), and in a slot's worktree a
``.venv`` link to the project's environment outside the worktree. Before, the policy
located the program before it matched the test command, and refused every layout but
the in-project one as "outside the project": an honest model could never run the tests.
"""

from __future__ import annotations

import dataclasses
import io
import shlex
from pathlib import Path

import pytest

from agent.core.log import AgentLog
from agent.core.policy import PolicyContext, judge_command
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.run.session_retries import Sessions
from agent.core.session.hooks import PolicySetup
from agent.core.session.session import SessionConfig
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets


def verdict(context: PolicyContext, command: str) -> str:
    return judge_command(command, context) or "allow"


def python_in(folder: Path) -> Path:
    """``folder/bin/python``, an executable stand-in."""
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    return python


def layout(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A project (or a slot's worktree) laid out as ``kind``, and the command the harness
    resolves there."""
    project = tmp_path / "project"
    project.mkdir()
    if kind == "no venv":
        python = python_in(tmp_path / "pyenv" / "versions" / "3.11.7")
        return project, f"{shlex.quote(str(python))} -m pytest -q"
    if kind == "no venv, a path that needs quotes":
        python = python_in(tmp_path / "my python 3")
        return project, f"{shlex.quote(str(python))} -m pytest -q"
    if kind == "in-project venv":
        python_in(project / ".venv")
        return project, ".venv/bin/python -m pytest -q"
    if kind == "linked venv":
        python_in(tmp_path / "envs" / "demo-1")
        (project / ".venv").symlink_to(tmp_path / "envs" / "demo-1", target_is_directory=True)
        return project, ".venv/bin/python -m pytest -q"
    assert kind == "slot worktree"
    python_in(project / ".venv")
    tree = tmp_path / "worktrees" / "issue-1"
    tree.mkdir(parents=True)
    (tree / ".venv").symlink_to(project / ".venv", target_is_directory=True)
    return tree, ".venv/bin/python -m pytest -q"


LAYOUTS = [
    "no venv",
    "no venv, a path that needs quotes",
    "in-project venv",
    "linked venv",
    "slot worktree",
]


@pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "unsandboxed"])
@pytest.mark.parametrize("kind", LAYOUTS)
def test_the_test_command_runs_as_written(tmp_path: Path, kind: str, sandboxed: bool) -> None:
    root, command = layout(tmp_path, kind)
    context = PolicyContext.for_project(root, test_command=command, sandboxed=sandboxed)

    assert verdict(context, command) == "allow"
    assert verdict(context, f"{command} tests/test_x.py -x") == "allow"
    assert "outside the project" in verdict(context, f"{command} /etc/passwd")


def test_only_the_command_as_written_is_allowed(tmp_path: Path) -> None:
    root, command = layout(tmp_path, "no venv")
    python = shlex.split(command)[0]
    context = PolicyContext.for_project(root, test_command=command)

    assert "outside the project" in verdict(context, f"{python} -c 'print(1)'")
    assert "outside the project" in verdict(context, f"{python} -m http.server")
    # A word with no value of its own (a variable) never stands for the command.
    assert "variable" in verdict(context, "$PY -m pytest -q")


def test_quality_commands_decided_later_are_allowed_in_every_session(tmp_path: Path) -> None:
    root, command = layout(tmp_path, "slot worktree")
    project = tmp_path / "project"
    log = AgentLog(io.StringIO())
    state = AgentState(test_command=command, quality_checks={"lint": ".venv/bin/ruff check ."})
    store = StateStore(WorkspaceFiles(tmp_path / "ws"), state, log)
    # The agent's start knew neither: the spec named none and nothing was detected yet.
    policy = PolicySetup(PolicyContext.for_project(project))
    config = SessionConfig(project_dir=project, model=None, policy=policy)
    sessions = Sessions(config, store, Ledger(store, log, Budgets()), log)

    for work_tree in (project, root):
        given = sessions.with_gate_commands(sessions.config_for(work_tree))
        assert given.policy is not None
        context = given.policy.context
        assert verdict(context, command) == "allow", work_tree
        assert verdict(context, ".venv/bin/ruff check .") == "allow", work_tree
    assert sessions.with_gate_commands(config).policy is not policy
    assert policy.context.preset_commands == ()


def test_with_commands_adds_each_once_and_skips_what_does_not_split(tmp_path: Path) -> None:
    context = PolicyContext.for_project(tmp_path, test_command="pytest -q")

    more = context.with_commands("pytest -q", None, "", "ruff check .", "broken 'quote")

    assert more.preset_commands == (("pytest", "-q"), ("ruff", "check", "."))
    assert dataclasses.replace(more, preset_commands=()).project_dir == context.project_dir

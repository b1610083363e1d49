"""Real agent runs on projects with environments of their own, through the real CLI.

- a project whose own ``.venv`` holds a module the harness's venv lacks: the gates and
  the model's Bash use the project's interpreter;
- a false "done": the work is kept as ``wip(#N)``, the refusal reaches issue_closure and
  the next session (attributed to the harness), which fixes it;
- a project whose tests cannot run stops at project_verification, auto-accept or not;
- the embedded model refuses a spec that is not the demo's.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from agent.daemon.agent_view import exit_state
from agent.demo_env import ensure_demo_env
from agent.frontend.demo import prepare_demo
from agent.model.playbook import ONLY_THE_DEMO
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.policy import PolicySettings
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.workspace import checkpoints, git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, start_agent

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"


def calc_project(root: Path) -> Path:
    """A git repository with its own ``.venv``: pytest (from the demo's cached env) and
    ``onlyhere``, a module the harness's interpreter does not have."""
    project = root / "calc"
    (project / "calc").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "calc" / "__init__.py").write_text("")
    (project / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (project / "tests" / "test_base.py").write_text(
        "import onlyhere\n\n\ndef test_base() -> None:\n    assert onlyhere.VALUE == 42\n"
    )
    (project / ".gitignore").write_text(".venv\n__pycache__/\n.pytest_cache/\n")
    base_python = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base_python, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    version = sysconfig.get_python_version()
    site = project / ".venv" / "lib" / f"python{version}" / "site-packages"
    (site / "onlyhere.py").write_text("VALUE = 42\n")
    demo_site = ensure_demo_env() / "lib" / f"python{version}" / "site-packages"
    (site / "demo-env.pth").write_text(f"{demo_site}\n")
    git.git(project, "init", "--quiet", "-b", "main")
    git.git(project, "add", "--all")
    git.git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "init")
    return project


def local_spec(project: Path, spec_file: Path, playbook: Path | None, **extra: Any) -> AgentSpec:
    return AgentSpec(
        spec_file=spec_file,
        project_dir=project,
        target_branch="main",
        file_only_mode=True,
        auto_accept=True,
        model=LOCAL_MODEL,
        playbook=playbook,
        **extra,
    )


def run_to_exit(spec: AgentSpec, timeout: float = 120.0) -> tuple[int, WorkspaceFiles]:
    files = WorkspaceFiles(prepare_workspace(spec))
    agent = start_agent(files)
    return finish(agent, timeout), files


def test_the_projects_environment_and_a_refused_false_done() -> None:
    assert importlib.util.find_spec("onlyhere") is None, "the harness must not have it"
    root = Path(tempfile.mkdtemp(prefix="e2p-", dir="/tmp"))
    project = calc_project(root)
    spec = local_spec(
        project,
        DATA / "calc-spec.md",
        DATA / "false-done-playbook.json",
        policy=PolicySettings(allow_one_liners=True),  # the playbook asks `python -c`
    )

    code, files = run_to_exit(spec)

    log = (files.logs / "e2e.log").read_text()
    assert code == 0, log_text(files)
    assert "project environment: project venv .venv" in log
    assert f"interpreter: {project}/.venv/bin/python 42" in log, "Bash got another python"
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects == ["feat(#1): Add double", "wip(#1): Add double"]
    wip_body = git.git(project, "log", "-1", "--format=%B", "HEAD~1")
    assert "the harness's test gate refused it" in wip_body
    assert "every test passes" not in wip_body, "a refused claim is not the commit's word"
    closure = next(c for c in checkpoints.history(files) if isinstance(c, IssueClosureCheckpoint))
    (refusal,) = closure.context.gate_refusals
    assert refusal.claim == "double(x) is implemented and every test passes."
    assert refusal.failing == ["tests/test_double.py::test_double"]
    assert refusal.commit_sha == git.git(project, "rev-parse", "HEAD~1")
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE
    assert state.project_baseline is not None and state.project_baseline.passed


def test_a_project_whose_tests_cannot_run_stops_at_project_verification() -> None:
    root = Path(tempfile.mkdtemp(prefix="e2b-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=True)
    spec = demo.model_copy(update={"test_command": "python3 -m no_such_runner_here -q"})

    started = time.monotonic()
    code, files = run_to_exit(spec, timeout=60)

    state = read_model(files.state, AgentState)
    assert code == 1
    assert state.phase is Phase.FAILED
    assert state.failure is not None
    assert "the project's tests cannot run" in state.failure
    assert "No module named no_such_runner_here" in state.failure
    assert "\n" not in state.failure
    assert state.broken, "the exit state is broken, not failed"
    assert exit_state(AgentStatus.FAILED, state) is ExitState.BROKEN
    assert [t.from_phase for t in state.history] == [Phase.PROJECT_VERIFICATION]
    assert time.monotonic() - started < 30


def test_the_embedded_model_refuses_a_spec_that_is_not_the_demo() -> None:
    root = Path(tempfile.mkdtemp(prefix="e2f-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=True)
    foreign = root / "inventory.md"
    foreign.write_text("# inventory\n\nAdd a stock-level endpoint.\n")
    spec = demo.model_copy(update={"spec_file": foreign, "playbook": None})

    code, files = run_to_exit(spec, timeout=60)

    state = read_model(files.state, AgentState)
    assert code == 1
    assert state.failure == ONLY_THE_DEMO
    assert "attempt" not in log_text(files), "no session is tried for a spec it cannot play"
    assert git.git(demo.project_dir, "branch", "--list", "feature/*") == ""

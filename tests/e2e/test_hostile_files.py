"""Issue 26, finding 3: files the harness reads from a work tree are hostile.

Through the real daemon and ``harness run``, the embedded model playing a playbook:

- a FIFO, or a link to ``/dev/zero``, named ``.harness.json``, ``pyproject.toml``
  linked to ``/dev/zero`` and a FIFO named ``.gitignore`` in the project before the
  run: one line each, the run goes on, on the first run and on ``harness resume``
  (before, the FIFO froze the agent at project_verification, the link filled its
  memory, and the ``.gitignore`` FIFO held every ``git status`` forever);
- the same planted by the model during a session, with FIFOs named ``.gitattributes``
  and ``.mailmap``, a plain FIFO and a socket: the git FIFOs are removed with a line,
  the others are named at issue_closure, the link is held for a person, the run ends
  DONE, and the next run on the project reads them in one line each.

Every wait is bounded: a hang fails the test within minutes, never holds CI.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.daemon import procs
from common.atomic import read_model_or_none
from common.paths import WorkspaceFiles, daemon_state_path
from common.schemas.agent_state import Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import (
    Checkpoint,
    IssueClosureCheckpoint,
    ProjectVerificationCheckpoint,
)
from common.schemas.daemon_state import DaemonState
from common.schemas.outbound import FindingKind
from common.schemas.quality import QualitySettings
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.workspace import git
from tests.e2e.agents import harness, phase_reached
from tests.e2e.test_cli import pending_in
from tests.e2e.test_project_env import calc_project

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
WAIT_S = 180.0
"""The longest any step may take here: a hang fails the test, it never holds the run."""
SETTINGS_REFUSED = ".harness.json is {what}, not a regular file: not read"
MYPY_REFUSED = "types (mypy): pyproject.toml is a symbolic link: not read, mypy is not run"


@pytest.fixture(autouse=True)
def no_agent_left(daemon_home: Path) -> Iterator[None]:
    """After the test, end this test's agents that still run (a hung one ignores
    ``harness stop``: its event loop waits on a read), found by the pids its own
    daemon recorded in its own ``HARNESS_HOME``."""
    yield
    state = read_model_or_none(daemon_state_path(daemon_home), DaemonState)
    for record in state.agents if state is not None else []:
        if record.pid is not None and procs.is_alive(record.pid, record.pid_start_ticks):
            procs.signal_group(record.pid, signal.SIGKILL)


def project_with_pytest_ini(root: Path) -> Path:
    """The calc project whose pytest reads ``pytest.ini`` (never ``pyproject.toml``: a
    link to ``/dev/zero`` there must not cost the gate's pytest its memory)."""
    project = calc_project(root)
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (project / "pyproject.toml").write_text('[project]\nname = "calc"\n')
    git.git(project, "add", "--all")
    git.git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "ini")
    return project


def spec_of(project: Path, spec_file: str, playbook: str, rules: dict[str, str]) -> AgentSpec:
    """A file-only spec on the embedded model; no quality check runs (each would read the
    hostile ``pyproject.toml``), yet the preset looks at it (the line we expect)."""
    return AgentSpec(
        spec_file=DATA / spec_file,
        project_dir=project,
        target_branch="main",
        file_only_mode=True,
        auto_accept=AutoAcceptRules.model_validate(rules),
        model=LOCAL_MODEL,
        playbook=DATA / playbook,
        quality=QualitySettings(checks={"lint": None, "types": None}),
    )


def start(spec: AgentSpec) -> WorkspaceFiles:
    started = harness("run", "--specs", json.dumps([spec.model_dump(mode="json")]))
    assert started.returncode == 0, started.stderr
    roots = sorted((spec.project_dir / ".claude-agent").iterdir(), key=os.path.getmtime)
    return WorkspaceFiles(roots[-1])


async def pending(files: WorkspaceFiles, agent: str) -> Checkpoint:
    try:
        return await pending_in(files, timeout=WAIT_S)
    except TimeoutError:
        raise AssertionError(f"no checkpoint in {WAIT_S:g} s:\n{log_of(agent)}") from None


def log_of(agent: str) -> str:
    return harness("logs", agent, "--lines", "400").stdout


async def until_ended(agent: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not any(f" {word} " in harness("status", agent).stdout for word in ("stopped", "done")):
        assert time.monotonic() < deadline, log_of(agent)
        await asyncio.sleep(0.3)


def plant_settings(project: Path, kind: str) -> None:
    settings = project / ".harness.json"
    if kind == "fifo":
        os.mkfifo(settings)
    else:
        settings.symlink_to("/dev/zero")
    (project / "pyproject.toml").unlink()
    (project / "pyproject.toml").symlink_to("/dev/zero")
    (project / "sub").mkdir()
    os.mkfifo(project / "sub" / ".gitignore")


@pytest.mark.parametrize(("kind", "what"), [("fifo", "a FIFO"), ("zero", "a symbolic link")])
async def test_hostile_settings_in_the_project_are_one_line_and_the_run_goes_on(
    daemon_home: Path, kind: str, what: str
) -> None:
    project = project_with_pytest_ini(Path(tempfile.mkdtemp(prefix="e2h-", dir="/tmp")))
    plant_settings(project, kind)
    rules = {"default": "approve", "project_verification": "ask"}
    files = start(spec_of(project, "calc-spec.md", "calc-playbook.json", rules))

    first = await pending(files, "agent_1")
    assert isinstance(first, ProjectVerificationCheckpoint), log_of("agent_1")
    warnings = first.context.warnings
    assert any(line.startswith(SETTINGS_REFUSED.format(what=what)) for line in warnings), warnings
    assert MYPY_REFUSED in warnings, warnings
    log = log_of("agent_1")
    assert "removed sub/.gitignore (a FIFO): git reads a file of that name" in log, log
    assert "Traceback" not in log

    assert harness("stop", "agent_1").returncode == 0
    await until_ended("agent_1")
    assert harness("resume", "agent_1").returncode == 0
    again = await pending(files, "agent_1")
    assert again.id == first.id
    assert harness("approve", "agent_1", "--checkpoint", again.id).returncode == 0
    await phase_reached(files, Phase.DONE, timeout=WAIT_S)
    subjects = git.git(project, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects == ["feat(#1): Add double"], log_of("agent_1")


async def test_hostile_files_a_session_plants_are_one_line_and_named_at_closure(
    daemon_home: Path,
) -> None:
    project = project_with_pytest_ini(Path(tempfile.mkdtemp(prefix="e2h-", dir="/tmp")))
    files = start(
        spec_of(project, "planted-spec.md", "planted-playbook.json", {"default": "approve"})
    )

    closure = await pending(files, "agent_1")
    assert isinstance(closure, IssueClosureCheckpoint), log_of("agent_1")
    context = closure.context
    assert context.special_files == [
        ".harness.json (a FIFO)",
        "data/pipe (a FIFO)",
        "data/sock (a socket)",
    ]
    flagged = {item.path: {f.kind for f in item.findings} for item in context.flagged}
    assert flagged == {"pyproject.toml": {FindingKind.SYMLINK_OUTSIDE}}
    log = log_of("agent_1")
    for name in (".gitattributes", ".mailmap", "sub/.gitignore"):
        assert f"removed {name} (a FIFO): git reads a file of that name" in log, log
    shown = harness("checkpoint", "agent_1").stdout
    assert "Not a file git can see, in no diff: data/pipe (a FIFO)" in shown, shown

    # Started again with the pipes in place (the venv's files, git, the layout read again).
    assert harness("stop", "agent_1").returncode == 0
    await until_ended("agent_1")
    assert harness("resume", "agent_1").returncode == 0
    again = await pending(files, "agent_1")
    assert again.id == closure.id
    chosen = harness("approve", "agent_1", "--checkpoint", closure.id, "--choice", "exclude=*")
    assert chosen.returncode == 0, chosen.stderr
    await phase_reached(files, Phase.DONE, timeout=WAIT_S)
    assert "Traceback" not in log_of("agent_1")

    # The next run on the project reads them again at project_verification: one line each.
    git.git(project, "checkout", "--quiet", "main")
    rules = {"default": "approve", "project_verification": "ask"}
    second = start(spec_of(project, "calc-spec.md", "calc-playbook.json", rules))
    verification = await pending(second, "agent_2")
    assert isinstance(verification, ProjectVerificationCheckpoint), log_of("agent_2")
    warnings = verification.context.warnings
    assert any(line.startswith(SETTINGS_REFUSED.format(what="a FIFO")) for line in warnings)
    assert MYPY_REFUSED in warnings, warnings
    assert harness("stop", "agent_2").returncode == 0
    await until_ended("agent_2")

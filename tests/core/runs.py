"""A real :class:`Run` on a small repository, for tests of the orchestrator's own checks."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

from agent.core.log import AgentLog
from agent.core.run.orchestrator import Run
from agent.core.session.session import SessionConfig
from agent.tracker.file import FileTracker
from common.paths import WorkspaceFiles
from common.project_env import ProjectEnv
from common.schemas.agent_state import AgentState
from common.schemas.spec import AgentSpec
from common.workspace.setup import load_info, prepare_workspace


def sh_git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(project), *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def make_run(tmp_path: Path) -> Run:
    """A run on a fresh repository (``main`` with one commit) in file-only mode."""
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    sh_git(project, "commit", "-q", "--allow-empty", "-m", "x")
    spec_file = tmp_path / "spec.md"
    spec_file.write_text("# spec\n")
    spec = AgentSpec(spec_file=spec_file, project_dir=project, target_branch="main")
    files = WorkspaceFiles(prepare_workspace(spec))
    return Run.create(
        files=files,
        info=load_info(files.root),
        state=AgentState(),
        tracker=FileTracker(files.milestone),
        sessions=SessionConfig(project_dir=project, model=None),
        log=AgentLog(io.StringIO()),
        project_env=ProjectEnv(kind="PATH", test_command=None),
    )


def logged(run: Run) -> str:
    """Everything ``run`` logged so far."""
    stream = run.log._stream
    assert isinstance(stream, io.StringIO)
    return stream.getvalue()

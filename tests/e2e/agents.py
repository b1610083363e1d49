"""Helpers for end-to-end tests: real agent processes on the demo, real files."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from watchfiles import awatch

from agent.frontend.demo import prepare_demo
from common.atomic import read_model, read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import Checkpoint
from common.schemas.milestone import FileMilestone
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.workspace import checkpoints, git
from common.workspace.setup import prepare_workspace

REPO = Path(__file__).resolve().parents[2]


def demo_workspace(auto_accept: bool) -> tuple[AgentSpec, WorkspaceFiles]:
    """The demo laid out in a new short temp folder, with its workspace prepared."""
    root = Path(tempfile.mkdtemp(prefix="e2e-", dir="/tmp"))
    spec = prepare_demo(root / "demo", auto_accept)
    return spec, WorkspaceFiles(prepare_workspace(spec))


def start_agent(files: WorkspaceFiles) -> subprocess.Popen[bytes]:
    """``python -m agent.process`` as the daemon starts it (own session, output to a log)."""
    log = (files.logs / "e2e.log").open("ab")
    return subprocess.Popen(
        [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
        cwd=REPO,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


async def next_pending(
    files: WorkspaceFiles, agent: subprocess.Popen[bytes], timeout: float = 60.0
) -> Checkpoint:
    """Wait (with watchfiles) until a checkpoint is pending; fail if the agent exits first."""

    async def watch() -> Checkpoint:
        async for _ in awatch(
            files.root, debounce=20, step=5, rust_timeout=200, yield_on_timeout=True
        ):
            found = checkpoints.pending(files)
            if found is not None:
                return found
            if agent.poll() is not None:
                raise AssertionError(
                    f"agent exited ({agent.returncode}) before a checkpoint:\n{log_text(files)}"
                )
        raise AssertionError("watch ended")

    found = checkpoints.pending(files)
    if found is not None:
        return found
    return await asyncio.wait_for(watch(), timeout)


def finish(agent: subprocess.Popen[bytes], timeout: float = 120.0) -> int:
    """Wait for the agent process to exit and return its exit status."""
    return agent.wait(timeout=timeout)


def log_text(files: WorkspaceFiles) -> str:
    path = files.logs / "e2e.log"
    return path.read_text(errors="replace")[-4000:] if path.exists() else ""


async def phase_reached(files: WorkspaceFiles, phase: Phase, timeout: float = 60.0) -> None:
    """Wait (with watchfiles) until the agent's persisted state is in ``phase``."""

    def there() -> bool:
        state = read_model_or_none(files.state, AgentState)
        return state is not None and state.phase is phase

    async def watch() -> None:
        async for _ in awatch(
            files.root, debounce=10, step=2, rust_timeout=200, yield_on_timeout=True
        ):
            if there():
                return

    if not there():
        await asyncio.wait_for(watch(), timeout)


def harness(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` as a person types it (``python -m agent.control``), in this
    process's environment plus ``env``; generous for loaded CI machines."""
    return subprocess.run(
        [sys.executable, "-m", "agent.control", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def run_local_spec(
    home: Path, project: Path, spec_file: Path, playbook: Path
) -> subprocess.CompletedProcess[str]:
    """``harness run --auto-accept --wait`` of ``spec_file`` on ``project`` (file-only, the
    embedded model playing ``playbook``), the specs written under ``home``."""
    specs = home / "specs.json"
    spec = {
        "spec_file": str(spec_file),
        "project_dir": str(project),
        "target_branch": "main",
        "file_only_mode": True,
        "model": LOCAL_MODEL,
        "playbook": str(playbook),
    }
    specs.write_text(json.dumps([spec]))
    return harness("run", "--auto-accept", "--wait", "--specs", f"@{specs}")


DEMO_FEATS = [
    "feat(#1): Add slugify",
    "feat(#2): Add word_count (case-insensitive word frequencies)",
    "feat(#3): Add truncate",
]
"""The demo's feature commits, sorted: one per issue."""


def assert_demo_done_once(files: WorkspaceFiles, project: Path) -> AgentState:
    """The demo ended DONE with each issue done exactly once: one feat commit and one
    closure note per issue, no note twice, and a merge request. Returns the state."""
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    subjects = git.git(project, "log", "--format=%s", "main..feature/textkit-helpers")
    assert sorted(subjects.splitlines()) == DEMO_FEATS
    milestone = read_model(files.milestone, FileMilestone)
    assert [issue.state for issue in milestone.issues] == ["closed"] * 3
    for issue in milestone.issues:
        kinds = Counter(note.kind for note in issue.notes)
        assert kinds["closure"] == 1, (issue.iid, kinds)
        assert len({(n.kind, n.body) for n in issue.notes}) == len(issue.notes), issue.iid
    assert milestone.merge_request is not None
    return state

"""Retry with the real agent: a run that stops is resumed under its name to DONE, and a
finished spec is run again only ``--fresh``, in a new workspace on a branch of its own."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles, numbered_workspace
from common.schemas.agent_state import AgentState, Phase
from common.workspace import git
from tests.e2e.agents import harness

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def test_a_stopped_run_is_resumed_to_done_and_rerun_only_fresh(daemon_home: Path) -> None:
    root = Path(tempfile.mkdtemp(prefix="hr", dir="/tmp"))
    spec = prepare_demo(root / "demo", True).model_copy(update={"max_iterations": 1})
    specs = root / "specs.json"
    specs.write_text(json.dumps([json.loads(spec.model_dump_json())]))

    first = harness("run", "--specs", f"@{specs}", "--wait")
    assert first.returncode == 1, first.stdout + first.stderr
    [stopped] = [line for line in first.stdout.splitlines() if "stopped" in line]
    assert stopped.startswith("agent_1: stopped at "), first.stdout
    assert stopped.endswith(" — max_iterations (1) reached; `harness resume` continues")
    resumes = 0
    while (resumed := harness("resume", "agent_1", "--wait")).returncode != 0:
        assert "agent_1 resumed" in resumed.stdout, resumed.stderr
        resumes += 1
        assert resumes < 5, resumed.stdout
    files = WorkspaceFiles(numbered_workspace(spec.project_dir, spec.spec_file, 1))
    assert read_model(files.state, AgentState).phase is Phase.DONE
    assert resumes >= 1, "one coding session per run: the first resume stops again"
    listed = harness("list").stdout.splitlines()
    assert [row.split()[:2] for row in listed[1:]] == [["agent_1", "done"]]

    again = harness("run", "--specs", f"@{specs}")
    assert again.returncode == 1
    assert again.stderr.startswith(
        "error: textkit-helpers.md already has a finished run in agent_1"
    )

    fresh = harness("run", "--fresh", "--specs", f"@{specs}")
    assert fresh.returncode == 0, fresh.stderr
    assert "agent_2 started" in fresh.stdout
    assert numbered_workspace(spec.project_dir, spec.spec_file, 2).is_dir()
    assert harness("stop", "agent_2").returncode == 0
    assert git.branch_exists(spec.project_dir, "feature/textkit-helpers")
    assert harness("status", "agent_1").stdout.split()[1] == "done", "agent_1's record is kept"

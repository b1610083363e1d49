"""A real agent, started from a shell holding the person's other secrets (red team,
issue 26): its sessions' commands never see them, a variable the spec names is kept, and
project_verification's log names what stayed outside (by name, never by value)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from common.paths import WorkspaceFiles
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import REPO
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
SECRET = "rt-77ab02-do-not-leak"


def env_playbook() -> dict[str, Any]:
    """The false-done playbook with one honest coding session that first looks at its
    environment by Bash."""
    base = json.loads((DATA / "false-done-playbook.json").read_text())
    honest = dict(base["scenarios"][1])
    honest["match"] = r"Session: coding issue #\d+: Add double"
    steps = [
        {"tool_uses": [{"name": "Bash", "input": {"command": "env", "description": "env"}}]},
        *honest["steps"],
    ]
    return {
        **base,
        "scenarios": [base["scenarios"][0], {**honest, "steps": steps}, base["scenarios"][-1]],
    }


def test_the_persons_secrets_stay_outside_the_sessions() -> None:
    root = Path(tempfile.mkdtemp(prefix="e2v-", dir="/tmp"))
    playbook = root / "playbook.json"
    playbook.write_text(json.dumps(env_playbook()))
    project = calc_project(root)
    spec = local_spec(project, DATA / "calc-spec.md", playbook, sandbox_env=["CALC_MODE"])
    files = WorkspaceFiles(prepare_workspace(spec))
    environ = {**os.environ, "AWS_SECRET_ACCESS_KEY": SECRET, "CALC_MODE": "kept-e2v"}
    with (files.logs / "e2e.log").open("ab") as log:
        agent = subprocess.run(
            [sys.executable, "-P", "-m", "agent.process", "--workspace", str(files.root)],
            cwd=REPO,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=environ,
            timeout=180,
            check=False,
        )
    text = (files.logs / "e2e.log").read_text()
    assert agent.returncode == 0, text[-3000:]
    trace = (files.root / "trace.jsonl").read_text()
    results = [
        json.loads(line)
        for line in trace.splitlines()
        if json.loads(line).get("type") == "tool_result"
    ]
    shown = json.dumps(results)
    assert "CALC_MODE=kept-e2v" in shown, "the env call's result is not in the trace"
    assert SECRET not in trace and SECRET not in text
    assert "AWS_SECRET_ACCESS_KEY" in text  # named as left outside

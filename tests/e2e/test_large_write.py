"""An honest ``Write`` of a file larger than the SDK's 1 MiB message cap (a generated
fixture, a lock file): the tool call's message is read whole, the session goes on, and
the file is held for a person as any file over the outbound review's size limit is."""

from __future__ import annotations

import json
import os
import signal
import tempfile
from pathlib import Path
from typing import Any

import pytest

from common.paths import WorkspaceFiles
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import log_text, next_pending, start_agent
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
FIXTURE_BYTES = 2 * 1024 * 1024


def large_write_playbook() -> dict[str, Any]:
    """The false-done playbook's honest coding session, writing a 2 MB fixture first."""
    base = json.loads((DATA / "false-done-playbook.json").read_text())
    honest = dict(base["scenarios"][1])
    honest["match"] = r"Session: coding issue #\d+: Add double"
    fixture = {
        "name": "Write",
        "input": {
            "file_path": "{{project_dir}}/tests/fixture.txt",
            "content": "0123456789abcdef\n" * (FIXTURE_BYTES // 17),
        },
    }
    steps = [{"tool_uses": [fixture]}, *honest["steps"]]
    scenarios = [base["scenarios"][0], {**honest, "steps": steps}, base["scenarios"][-1]]
    return {**base, "scenarios": scenarios}


async def test_a_write_over_one_mebibyte_does_not_end_the_session() -> None:
    root = Path(tempfile.mkdtemp(prefix="e2w-", dir="/tmp"))
    playbook = root / "playbook.json"
    playbook.write_text(json.dumps(large_write_playbook()))
    project = calc_project(root)
    spec = local_spec(project, DATA / "calc-spec.md", playbook)
    files = WorkspaceFiles(prepare_workspace(spec))
    agent = start_agent(files)
    try:
        pending = await next_pending(files, agent, timeout=120)
    finally:
        os.killpg(agent.pid, signal.SIGTERM)
        agent.wait(30)
    log = log_text(files)
    assert "maximum buffer size" not in log, log
    assert isinstance(pending, IssueClosureCheckpoint), log
    assert [item.path for item in pending.context.flagged] == ["tests/fixture.txt"]
    assert (project / "tests" / "fixture.txt").stat().st_size > 1024 * 1024

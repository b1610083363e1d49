"""The agent process's old name (``python -m agent.cli``) still runs the agent process:
a daemon of the version before the rename starts and restarts its agents by it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from common.harness_code import module_command, with_code_importable
from common.paths import WorkspaceFiles


@pytest.mark.parametrize("module", ["agent.process", "agent.cli"])
def test_both_names_run_the_agent_to_its_exit_status(tmp_path: Path, module: str) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    done = subprocess.run(
        [*module_command(module), "--workspace", str(workspace)],
        cwd=tmp_path,
        env=with_code_importable(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr[-500:]
    assert "agent ended: failed" in done.stdout + done.stderr
    assert WorkspaceFiles(workspace).exit_status.is_file()

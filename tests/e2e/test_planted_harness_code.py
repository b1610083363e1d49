"""A project whose packages are named like the harness's never runs as the harness.

The daemon starts in the folder ``harness`` was typed in, the agent and the embedded
model's server in the project: the model's tree. ``python -m agent.cli`` there used to
import the project's ``agent/cli.py`` in place of the harness's (outside the sandbox,
with the decision key and the credentials within reach). Here the demo runs to DONE
with ``agent``, ``common`` and ``tui`` packages planted in its project, every module of
them writing a marker when imported, and ``harness`` typed inside the project.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent.frontend.demo import prepare_demo
from common.paths import WorkspaceFiles
from tests.common.test_harness_code import plant_packages
from tests.e2e.agents import REPO, assert_demo_done_once

pytestmark = pytest.mark.slow

#: The console script, as a person types ``harness`` (its own folder, not the working
#: one, leads its imports).
HARNESS = str(Path(sys.executable).with_name("harness"))


def test_the_demo_with_the_harness_package_names_planted_in_its_project(
    daemon_home: Path,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="e2p-", dir="/tmp"))
    spec = prepare_demo(root / "demo", auto_accept=True)
    marker = root / "planted-code-ran"
    plant_packages(spec.project_dir, marker)
    for package in ("common", "common/workspace"):  # the names every module imports first
        (spec.project_dir / package).mkdir()
        (spec.project_dir / package / "__init__.py").write_text(
            f"open({str(marker)!r}, 'a').write({package!r} + '\\n')\n"
        )

    done = subprocess.run(
        [HARNESS, "run", "--wait", "--specs", json.dumps([spec.model_dump(mode="json")])],
        cwd=spec.project_dir,  # where a person may well type it
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip

    assert not marker.exists(), f"the project's code ran as the harness: {marker.read_text()}"
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    files = WorkspaceFiles(next((spec.project_dir / ".claude-agent").iterdir()))
    assert_demo_done_once(files, spec.project_dir)

"""``harness replay`` runs the model's recorded commands where its agent ran them: in the
sandbox (red team, issue 26).

The recorded answers are the model's own. Its coding session writes a test that is
inert in the sandbox and, run anywhere else, leaves a mark in the host's ``/tmp`` and
notes whether it can see ``HARNESS_HOME``; the session runs the tests through Bash.
Replayed on the host, that test ran with the person's authority; replayed in the
sandbox, the host's ``/tmp`` never sees it.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.agents import harness
from tests.e2e.test_project_env import calc_project, local_spec, run_to_exit

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"

PROBE_TEST = """import os
from pathlib import Path

from calc.double import double


def test_double() -> None:
    mark = Path("/tmp/{name}")
    home = Path(os.environ.get("HARNESS_HOME", "/nowhere"))
    mark.write_text(f"HARNESS_HOME visible: {{home.exists()}}")
    assert double(2) == 4
"""


def hostile_playbook(name: str) -> dict[str, Any]:
    """The false-done playbook's initializer and merge request, and one coding session
    that writes the probe test, runs the tests by Bash and reports done."""
    base = json.loads((DATA / "false-done-playbook.json").read_text())
    initializer, merge_request = base["scenarios"][0], base["scenarios"][-1]
    coding = {
        "name": "coding: the probe",
        "match": r"Session: coding issue #\d+: Add double",
        "captures": {
            "project_dir": r"(?m)Project directory: (.+?)\s*$",
            "iid": r"Session: coding issue #(\d+)",
        },
        "steps": [
            {
                "tool_uses": [
                    {
                        "name": "Write",
                        "input": {
                            "file_path": "{{project_dir}}/calc/double.py",
                            "content": "def double(x: int) -> int:\n    return x * 2\n",
                        },
                    },
                    {
                        "name": "Write",
                        "input": {
                            "file_path": "{{project_dir}}/tests/test_double.py",
                            "content": PROBE_TEST.format(name=name),
                        },
                    },
                ]
            },
            {
                "tool_uses": [
                    {
                        "name": "Bash",
                        "input": {
                            "command": "python -m pytest -q",
                            "description": "Tests",
                        },
                    }
                ]
            },
            {
                "tool_uses": [
                    {
                        "name": "mcp__harness__report_issue_done",
                        "input": {"issue_iid": "{{iid}}", "summary": "double(x) is done."},
                    }
                ]
            },
        ],
        "final_text": "Done.",
    }
    return {**base, "scenarios": [initializer, coding, merge_request]}


def test_a_replay_runs_the_models_commands_in_the_sandbox() -> None:
    name = f"replay-escape-{secrets.token_hex(6)}"
    mark = Path("/tmp") / name
    root = Path(tempfile.mkdtemp(prefix="e2r-", dir="/tmp"))
    playbook = root / "playbook.json"
    playbook.write_text(json.dumps(hostile_playbook(name)))
    project = calc_project(root)
    spec = local_spec(project, DATA / "calc-spec.md", playbook)
    code, files = run_to_exit(spec)
    assert code == 0, (files.logs / "e2e.log").read_text()[-3000:]
    assert not mark.exists(), "the agent's own run reached the host's /tmp"
    coding = next(
        json.loads(line)["session"]
        for line in (files.root / "trace.jsonl").read_text().splitlines()
        if json.loads(line).get("kind") == "coding"
    )
    try:
        replayed = harness(
            "replay",
            str(files.root),
            "--session",
            str(coding),
            env={"HARNESS_HOME": str(root / "home")},
        )
        assert not mark.exists(), f"the replay ran the model's test on the host: {mark.read_text()}"
        assert "behaved as recorded" in replayed.stdout, replayed.stdout + replayed.stderr
    finally:
        mark.unlink(missing_ok=True)

"""A real agent on the demo project reaches issue_closure: the dialog and
``harness checkpoint --full`` show the lines of the code it committed, ``--json``
the checkpoint itself (embedded model, real daemon, real git)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointAdapter,
    CheckpointType,
    IssueClosureCheckpoint,
)
from common.schemas.spec import AgentSpec
from common.workspace import answer, checkpoints
from tests.e2e.agents import harness
from tests.tui.helpers import DIALOG_TESTS, dialog, wait_until
from tests.tui.test_e2e import AGENT_WAIT, tui, waiting_at
from tui.widgets.diff_view import DiffView

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


async def pending(files: WorkspaceFiles, timeout: float = AGENT_WAIT) -> Checkpoint:
    """The next checkpoint that waits for a decision."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = checkpoints.pending(files)
        if found is not None:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError("no checkpoint came")


async def test_the_closure_shows_the_committed_code_in_the_dialog_and_the_cli(
    daemon: None, demo_spec: AgentSpec
) -> None:
    async with DaemonClient.connect() as client:
        started = await client.start(demo_spec)
    files = WorkspaceFiles(started.workspace)
    while (found := await pending(files)).type is not CheckpointType.ISSUE_CLOSURE:
        answer.approve(files.root, None, None, client="cli", checkpoint_id=found.id)
        await asyncio.sleep(0.2)
    assert isinstance(found, IssueClosureCheckpoint)

    context = found.context
    committed = subprocess.run(
        ["git", "-C", str(demo_spec.project_dir), "diff", "--text", context.diff_range],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    added = [
        line
        for line in committed.splitlines()
        if line.startswith("+") and not line.startswith("+++") and len(line.strip()) > 8
    ]
    assert added, committed  # the agent committed code

    full = harness("checkpoint", started.name, "--full")
    assert full.returncode == 0, full.stderr
    assert "IF APPROVED:" in full.stdout and "DIFF (" in full.stdout
    for line in added:
        assert line in full.stdout
    plain = harness("checkpoint", started.name)
    assert "DIFF (" not in plain.stdout

    as_json = harness("checkpoint", started.name, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert as_json.stdout.isascii()
    parsed = CheckpointAdapter.validate_python(json.loads(as_json.stdout))
    assert parsed == found

    app = tui(demo_spec, wizard=False, settings=DIALOG_TESTS)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: waiting_at(app, CheckpointType.ISSUE_CLOSURE), "closure", AGENT_WAIT
        )
        shown = dialog(app)
        assert shown is not None
        await wait_until(pilot, lambda: bool(shown.query(DiffView)), "the diff")
        view = shown.query_one(DiffView)
        text = "\n".join(item.text for item in view.review.files)
        for line in added:
            assert line in text
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert view.current_file == 0

"""Auto-accept rules through the real CLI and daemon: with ``{"default": "approve",
"issue_closure": "ask"}`` in the spec only the issue_closure checkpoints wait for a
person (answered with ``harness approve``); every other decision names its rule;
``harness list`` shows the rules and ``harness auto-accept`` changes them."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest
from watchfiles import awatch

from agent.control.agent_lines import LEGEND
from agent.frontend.demo import prepare_demo
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.workspace import checkpoints
from tests.e2e.agents import harness

RULES = {"default": "approve", "issue_closure": "ask"}


def ended(files: WorkspaceFiles) -> bool:
    status = harness("status", "agent_1").stdout
    return " done " in status.splitlines()[0] or "  exit:      failed" in status


async def next_waiting(files: WorkspaceFiles, timeout: float = 120.0) -> Checkpoint | None:
    """The next checkpoint waiting for a person, or ``None`` once the agent is done."""

    async def watch() -> Checkpoint | None:
        async for _ in awatch(
            files.root, debounce=20, step=5, rust_timeout=500, yield_on_timeout=True
        ):
            found = checkpoints.pending(files)
            if found is not None or ended(files):
                return found
        raise AssertionError("watch ended")

    found = checkpoints.pending(files)
    if found is not None or ended(files):
        return found
    return await asyncio.wait_for(watch(), timeout)


@pytest.mark.slow
async def test_only_issue_closures_wait_for_a_person_under_the_spec_rules(
    daemon_home: Path,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="e2r-", dir="/tmp"))
    spec = prepare_demo(root / "demo", auto_accept=False)
    dumped = {**spec.model_dump(mode="json"), "auto_accept": RULES}
    started = harness("run", "--specs", json.dumps([dumped]))
    assert started.returncode == 0, started.stderr
    files = WorkspaceFiles(next((spec.project_dir / ".claude-agent").iterdir()))

    waited: list[CheckpointType] = []
    while (pending := await next_waiting(files)) is not None:
        waited.append(pending.type)
        if len(waited) == 1:
            listed = harness("list").stdout
            assert " AUTO* " in listed and LEGEND in listed, listed  # the rules: in status
            status = harness("status", "agent_1").stdout
            assert "  auto-accept: default=approve,issue_closure=ask\n" in status, status
        answered = harness("approve", "agent_1", "--checkpoint", pending.id)
        assert answered.returncode == 0, answered.stderr

    assert waited == [CheckpointType.ISSUE_CLOSURE] * 3
    decided = [entry for entry in checkpoints.history(files) if entry.decision is not None]
    for entry in decided:
        decision = entry.decision
        assert decision is not None
        if entry.type is CheckpointType.ISSUE_CLOSURE:
            assert decision.decided_by.startswith("cli:") and decision.rule is None
        else:
            assert (decision.decided_by, decision.rule) == (
                "auto-accept",
                "auto-accept: default=approve",
            ), entry.id
    assert len(decided) >= 9
    logs = harness("logs", "agent_1").stdout
    assert "approved by auto-accept (rule auto-accept: default=approve)" in logs

    bad = harness("auto-accept", "agent_1", "issue_closuer=ask")
    assert bad.returncode != 0
    assert bad.stderr.strip().count("\n") == 0 and "not a checkpoint type" in bad.stderr
    changed = harness("auto-accept", "agent_1", "issue_closure=approve")
    assert changed.returncode == 0, changed.stderr
    assert " AUTO " in changed.stdout and "auto-accept: default=approve\n" in changed.stdout

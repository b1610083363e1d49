"""project_verification records the outbound settings the person was shown: the
repository's ``.harness.json`` is read once, before the checkpoint, never after the
decision (a file rewritten while the person reads is not what they approved)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent.core.stages.project_verification import project_verification
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import ProjectVerificationCheckpoint
from common.workspace import answer, checkpoints
from tests.core.runs import make_run


def write_settings(project: Path, max_diff_lines: int, protected: list[str]) -> None:
    outbound = {"max_diff_lines": max_diff_lines, "protected_paths": protected}
    (project / ".harness.json").write_text(json.dumps({"outbound": outbound}))


async def test_the_settings_recorded_are_the_ones_shown_at_the_checkpoint(
    tmp_path: Path,
) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    write_settings(project, 111, ["deploy/"])

    verifying = asyncio.create_task(project_verification(run))
    for _ in range(400):
        if checkpoints.pending(run.files) is not None:
            break
        await asyncio.sleep(0.05)
    shown = checkpoints.pending(run.files)
    assert isinstance(shown, ProjectVerificationCheckpoint)
    assert shown.context.outbound is not None
    assert shown.context.outbound.max_diff_lines == 111
    assert any("issues over 111 lines" in line for line in shown.what_happened)
    # Rewritten while the person reads the checkpoint: looser limits, no protected path.
    write_settings(project, 99_999, [])
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    await asyncio.wait_for(verifying, 30)

    assert run.state.phase is Phase.SPEC_TO_ISSUES
    assert run.state.outbound == shown.context.outbound
    assert run.state.outbound.protected_paths == ["deploy/"]

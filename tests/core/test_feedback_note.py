"""The embedded model does not act on a rejection's feedback, and the run says so where
the person reads it; with a Claude model nothing is added."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.model.playbook import IGNORES_FEEDBACK
from common.inotify import FolderWatch
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.workspace import answer, checkpoints
from common.workspace.rejecting import model_reads_reason, reason_use
from tests.core.checkpoint_samples import closure, mr_transition
from tests.core.runs import logged, make_run


async def pending(files: WorkspaceFiles) -> None:
    """Until the desk has written its checkpoint (watched, not polled)."""
    async with FolderWatch(files.root) as watch:
        while checkpoints.pending(files) is None:
            await watch.changed()


async def rejected(
    tmp_path: Path, kind: CheckpointType, sample: Checkpoint, note: str | None, reason: str
) -> str:
    """What the run logs when ``sample`` is rejected with ``reason``."""
    run = make_run(tmp_path)
    run.desk.feedback_note = note

    async def build(checkpoint_id: str) -> Checkpoint:
        return sample.model_copy(update={"id": checkpoint_id})

    asked = asyncio.create_task(run.desk.ask(kind, build))
    await asyncio.wait_for(pending(run.files), 10)
    await asyncio.to_thread(answer.reject, run.files.root, reason)
    await asyncio.wait_for(asked, 10)
    return logged(run)


async def test_a_rejection_the_next_session_reads_says_the_playbook_ignores_it(
    tmp_path: Path,
) -> None:
    log = await rejected(
        tmp_path, CheckpointType.ISSUE_CLOSURE, closure(), IGNORES_FEEDBACK, "add a test"
    )
    assert log.rstrip().endswith(IGNORES_FEEDBACK)


@pytest.mark.parametrize(
    ("kind", "sample", "note", "reason"),
    [
        (CheckpointType.ISSUE_CLOSURE, closure(), None, "add a test"),  # a Claude model
        (CheckpointType.ISSUE_CLOSURE, closure(), IGNORES_FEEDBACK, ""),  # no feedback given
        (CheckpointType.MR_PHASE_TRANSITION, mr_transition(), IGNORES_FEEDBACK, "later"),
    ],
)
async def test_nothing_is_said_where_no_model_would_act_on_feedback(
    tmp_path: Path, kind: CheckpointType, sample: Checkpoint, note: str | None, reason: str
) -> None:
    log = await rejected(tmp_path, kind, sample, note, reason)
    assert IGNORES_FEEDBACK not in log


@pytest.mark.parametrize("kind", list(CheckpointType))
def test_the_types_whose_reason_the_model_reads_are_those_whose_words_say_so(
    kind: CheckpointType,
) -> None:
    assert model_reads_reason(kind) is ("never reads it" not in reason_use(kind))

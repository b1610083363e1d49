"""Choosing the issue for a free slot: a real run's desk, decisions signed by the real
client code, a file tracker with dependencies.

The question offers only issues that may start (none running, every dependency
closed), shows the ones still waiting, and the person's pick (not the recommendation)
is the one that gets the slot; a reject pauses the run and records nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Run
from agent.core.stages import selection
from common.errors import CheckpointError
from common.schemas.checkpoint import IssueSelectionCheckpoint
from common.schemas.issue_slot import SlotStep
from common.schemas.issues import IssueDraft, TrackedIssue
from common.workspace import answer
from tests.core.runs import make_run
from tests.core.test_desk import pending_id, until


async def four_issues(run: Run) -> list[TrackedIssue]:
    """#1 in a slot already, #2 and #4 ready, #3 waiting for #1."""
    drafts = [
        IssueDraft(title="One", summary="one"),
        IssueDraft(title="Two", summary="two"),
        IssueDraft(title="Three", summary="three", depends_on=[1]),
        IssueDraft(title="Four", summary="four"),
    ]
    await run.tracker.ensure_milestone("spec", "the milestone")
    await run.tracker.create_issues(drafts)
    return await run.tracker.list_issues()


async def asked(run: Run) -> IssueSelectionCheckpoint:
    await until(lambda: pending_id(run) == "issue_selection-slot0")
    found = answer.pending_checkpoint(run.files.root)
    assert isinstance(found, IssueSelectionCheckpoint)
    return found


async def test_the_person_picks_a_ready_issue_other_than_the_recommended(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    issues = await four_issues(run)

    pick = asyncio.create_task(selection.pick_for_slot(run, issues, {1}))
    shown = await asked(run)
    assert [ref.iid for ref in shown.context.open_issues] == [2, 4]
    assert shown.context.recommended_iid == 2
    assert [(b.iid, b.waiting_for) for b in shown.context.blocked] == [(3, [1])]
    assert any(line.startswith("slots: #1 running") for line in shown.what_happened)
    with pytest.raises(CheckpointError, match="waits for #1"):
        answer.approve(run.files.root, "3", None)
    with pytest.raises(CheckpointError, match="choose one open issue"):
        answer.approve(run.files.root, "1", None)  # running already
    await asyncio.to_thread(answer.approve, run.files.root, "4", None)

    assert await asyncio.wait_for(pick, 10) == 4
    slot = run.state.work(4).slot
    assert slot is not None and slot.step is SlotStep.SELECTION
    assert slot.branch == f"{run.info.feature_branch}-issue-4"
    assert run.state.slots_opened == 1 and set(run.state.issues) == {4}


async def test_a_rejected_choice_pauses_and_opens_no_slot(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    issues = await four_issues(run)

    pick = asyncio.create_task(selection.pick_for_slot(run, issues, {1}))
    await asked(run)
    await asyncio.to_thread(answer.reject, run.files.root, "not now")

    with pytest.raises(StopRun):
        await asyncio.wait_for(pick, 10)
    assert run.state.slots_opened == 0 and not run.state.issues

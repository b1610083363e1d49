"""The checkpoint desk: asks from several coroutines (slots) open one checkpoint at a time.

A real run's desk on a workspace, decisions signed by the real client code
(:mod:`common.workspace.answer`), as a person's would be.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from agent.core.run.orchestrator import Run
from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.workspace import answer, checkpoints
from tests.core.checkpoint_samples import selection
from tests.core.runs import make_run
from tests.core.test_decision_mac import transition


async def until(condition: Callable[[], bool]) -> None:
    for _ in range(400):
        if condition():
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the condition never held")


def pending_id(run: Run) -> str | None:
    found = checkpoints.pending(run.files)
    return found.id if found is not None else None


async def test_two_asks_at_once_open_one_checkpoint_at_a_time(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    built: list[str] = []

    async def first(checkpoint_id: str) -> Checkpoint:
        built.append(checkpoint_id)
        return transition(checkpoint_id)

    async def second(checkpoint_id: str) -> Checkpoint:
        built.append(checkpoint_id)
        return selection(checkpoint_id)

    one = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, first))
    two = asyncio.create_task(run.desk.ask(CheckpointType.ISSUE_SELECTION, second))
    await until(lambda: pending_id(run) == "mr_phase_transition-0")
    await asyncio.sleep(0.3)  # time enough for the second to overwrite the file, were it let
    assert built == ["mr_phase_transition-0"] and not two.done()
    assert pending_id(run) == "mr_phase_transition-0"

    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    decided = await asyncio.wait_for(one, 10)
    assert decided.decision is not None and decided.decision.approved
    await until(lambda: pending_id(run) == "issue_selection-0")
    assert built == ["mr_phase_transition-0", "issue_selection-0"]

    await asyncio.to_thread(answer.reject, run.files.root, "not this one")
    rejected = await asyncio.wait_for(two, 10)
    assert rejected.id == "issue_selection-0"
    assert rejected.decision is not None and not rejected.decision.approved


async def test_an_ask_that_fails_to_build_lets_the_next_one_in(tmp_path: Path) -> None:
    run = make_run(tmp_path)

    async def broken(checkpoint_id: str) -> Checkpoint:
        raise ValueError(f"cannot build {checkpoint_id}")

    async def fine(checkpoint_id: str) -> Checkpoint:
        return transition(checkpoint_id)

    failing = asyncio.create_task(run.desk.ask(CheckpointType.ISSUE_SELECTION, broken))
    waiting = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, fine))
    await until(lambda: pending_id(run) == "mr_phase_transition-0")
    assert failing.done() and isinstance(failing.exception(), ValueError)
    await asyncio.to_thread(answer.approve, run.files.root, None, None)
    assert (await asyncio.wait_for(waiting, 10)).id == "mr_phase_transition-0"

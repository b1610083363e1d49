"""The checkpoint file: one pending question, one winning answer, a history of decisions."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.errors import (
    AlreadyDecidedError,
    CheckpointError,
    NoPendingCheckpointError,
    StateFileError,
)
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Decision, EnrichmentDecision
from common.workspace import checkpoints
from tests.core.checkpoint_samples import closure, enrichment, regression, selection

ROOT = Path(__file__).resolve().parents[2]

#: Answers checkpoint ids read from stdin as ``decided_by=argv[2]``; prints won/lost per id.
ANSWERER = """
import sys
from pathlib import Path
from common.workspace.checkpoints import answer
from common.errors import AlreadyDecidedError
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Decision

files = WorkspaceFiles(Path(sys.argv[1]))
print("ready", flush=True)
for line in sys.stdin:
    try:
        answer(files, line.strip(), Decision(approved=True, decided_by=sys.argv[2]))
    except AlreadyDecidedError as e:
        print("lost", e, flush=True)
    else:
        print("won", flush=True)
"""


@pytest.fixture
def files(tmp_path: Path) -> WorkspaceFiles:
    root = tmp_path / "ws"
    root.mkdir()
    return WorkspaceFiles(root)


@pytest.fixture
def answerers(files: WorkspaceFiles) -> Iterator[list[subprocess.Popen[str]]]:
    """Two ready answering processes, ``cli:one`` and ``cli:two``; killed by pid at the end."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ANSWERER, str(files.root), name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        for name in ("cli:one", "cli:two")
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "ready"
        yield procs
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=5)


def decision(who: str = "tui:ada", approved: bool = True) -> Decision:
    return Decision(approved=approved, decided_by=who)


# --- write, read, answer ----------------------------------------------------------------


def test_an_empty_workspace_has_no_checkpoint(files: WorkspaceFiles) -> None:
    assert checkpoints.current(files) is None
    assert checkpoints.pending(files) is None
    assert checkpoints.history(files) == []


def test_a_written_checkpoint_is_current_and_pending(files: WorkspaceFiles) -> None:
    checkpoint = closure("ic-1")

    checkpoints.write(files, checkpoint)

    assert checkpoints.current(files) == checkpoint
    assert checkpoints.pending(files) == checkpoint
    assert files.checkpoint.exists() and files.checkpoint_lock.exists()


def test_answering_decides_the_pending_checkpoint(files: WorkspaceFiles) -> None:
    checkpoints.write(files, closure("ic-1"))

    result = checkpoints.answer(files, "ic-1", decision("cli:bob", approved=False))

    assert result.status == "decided"
    assert result.decision is not None
    assert (result.decision.approved, result.decision.decided_by) == (False, "cli:bob")
    assert checkpoints.current(files) == result
    assert checkpoints.pending(files) is None


def test_answering_without_an_id_decides_whatever_is_pending(files: WorkspaceFiles) -> None:
    checkpoints.write(files, enrichment("ie-7"))

    result = checkpoints.answer(
        files, None, EnrichmentDecision(approved=True, decided_by="tui:ada", selected=[2])
    )

    assert result.id == "ie-7"
    assert isinstance(result.decision, EnrichmentDecision)
    assert result.decision.selected == [2]


def test_answering_twice_names_who_decided_first(files: WorkspaceFiles) -> None:
    checkpoints.write(files, closure("ic-1"))
    first = checkpoints.answer(files, "ic-1", decision("tui:ada"))

    with pytest.raises(AlreadyDecidedError, match="ic-1 was already decided by tui:ada at 20"):
        checkpoints.answer(files, "ic-1", decision("cli:bob", approved=False))

    assert checkpoints.current(files) == first


def test_answering_a_stale_checkpoint_id_is_refused(files: WorkspaceFiles) -> None:
    newer = selection("is-2")
    checkpoints.write(files, newer)

    with pytest.raises(AlreadyDecidedError, match=r"is-1 is no longer current \(now is-2\)"):
        checkpoints.answer(files, "is-1", decision())

    assert checkpoints.pending(files) == newer


def test_answering_when_nothing_waits_is_refused(files: WorkspaceFiles) -> None:
    with pytest.raises(NoPendingCheckpointError):
        checkpoints.answer(files, None, decision())


def test_a_decision_that_does_not_fit_leaves_the_checkpoint_pending(
    files: WorkspaceFiles,
) -> None:
    question = regression("ra-1")
    checkpoints.write(files, question)

    with pytest.raises(CheckpointError, match="does not answer regression_approval"):
        checkpoints.answer(files, "ra-1", decision())

    assert checkpoints.pending(files) == question


def test_a_corrupt_checkpoint_file_is_reported_not_reset(files: WorkspaceFiles) -> None:
    files.checkpoint.write_text('{"type": "issue_closure"')

    with pytest.raises(StateFileError) as caught:
        checkpoints.answer(files, None, decision())

    assert caught.value.path == files.checkpoint
    assert files.checkpoint.read_text() == '{"type": "issue_closure"'


def test_two_processes_racing_to_answer_have_exactly_one_winner(
    files: WorkspaceFiles, answerers: list[subprocess.Popen[str]]
) -> None:
    for round_ in range(5):
        checkpoint_id = f"ic-{round_}"
        checkpoints.write(files, closure(checkpoint_id))

        for proc in answerers:
            assert proc.stdin is not None
            proc.stdin.write(f"{checkpoint_id}\n")
        for proc in answerers:
            assert proc.stdin is not None
            proc.stdin.flush()
        outcomes = {}
        for proc, name in zip(answerers, ("cli:one", "cli:two"), strict=True):
            assert proc.stdout is not None
            outcomes[name] = proc.stdout.readline().strip()

        winners = [name for name, outcome in outcomes.items() if outcome == "won"]
        assert len(winners) == 1, outcomes
        (loser_outcome,) = [outcome for outcome in outcomes.values() if outcome != "won"]
        assert loser_outcome.startswith(f"lost checkpoint {checkpoint_id} was already decided by")
        assert winners[0] in loser_outcome
        found = checkpoints.current(files)
        assert found is not None and found.decision is not None
        assert (found.id, found.decision.decided_by) == (checkpoint_id, winners[0])


# --- waiting ----------------------------------------------------------------------------


async def test_wait_returns_at_once_when_already_decided(files: WorkspaceFiles) -> None:
    checkpoints.write(files, closure("ic-1"))
    answered = checkpoints.answer(files, "ic-1", decision())
    started = time.monotonic()

    found = await asyncio.wait_for(checkpoints.wait_for_decision(files, "ic-1"), 5)

    assert found == answered
    assert time.monotonic() - started < 0.5


async def test_wait_returns_when_another_process_answers(
    files: WorkspaceFiles, answerers: list[subprocess.Popen[str]]
) -> None:
    checkpoints.write(files, closure("ic-1"))
    waiter = asyncio.create_task(checkpoints.wait_for_decision(files, "ic-1"))
    await asyncio.sleep(0)  # let the waiter read the file and start watching
    assert not waiter.done()

    stdin = answerers[1].stdin
    assert stdin is not None
    stdin.write("ic-1\n")
    stdin.flush()
    found = await asyncio.wait_for(waiter, 10)

    assert found.decision is not None
    assert (found.id, found.status, found.decision.decided_by) == ("ic-1", "decided", "cli:two")


async def test_wait_returns_when_a_thread_answers(files: WorkspaceFiles) -> None:
    checkpoints.write(files, closure("ic-1"))
    waiter = asyncio.create_task(checkpoints.wait_for_decision(files, "ic-1"))
    await asyncio.sleep(0)

    await asyncio.to_thread(checkpoints.answer, files, "ic-1", decision("tui:eve"))
    found = await asyncio.wait_for(waiter, 10)

    assert found.decision is not None
    assert found.decision.decided_by == "tui:eve"


async def test_wait_ignores_a_decision_for_another_checkpoint(files: WorkspaceFiles) -> None:
    checkpoints.write(files, closure("ic-1"))
    waiter = asyncio.create_task(checkpoints.wait_for_decision(files, "ic-2"))

    checkpoints.answer(files, "ic-1", decision())
    done, _ = await asyncio.wait({waiter}, timeout=0.3)
    assert not done

    checkpoints.write(files, closure("ic-2"))
    checkpoints.answer(files, "ic-2", decision("cli:late"))
    found = await asyncio.wait_for(waiter, 10)
    assert found.decision is not None
    assert (found.id, found.decision.decided_by) == ("ic-2", "cli:late")


# --- history ----------------------------------------------------------------------------


def test_record_appends_each_decided_checkpoint_once(files: WorkspaceFiles) -> None:
    checkpoints.write(files, closure("ic-1"))
    first = checkpoints.answer(files, "ic-1", decision())
    checkpoints.write(files, enrichment("ie-1"))
    second = checkpoints.answer(
        files, "ie-1", EnrichmentDecision(approved=True, decided_by="auto-accept", selected=[1])
    )

    checkpoints.record(files, first)
    checkpoints.record(files, first)
    checkpoints.record(files, second)
    checkpoints.record(files, first)

    assert checkpoints.history(files) == [first, second]


def test_a_corrupt_history_is_reported(files: WorkspaceFiles) -> None:
    files.checkpoint_log.write_text("[]")

    with pytest.raises(StateFileError):
        checkpoints.history(files)
    with pytest.raises(StateFileError):
        checkpoints.record(files, closure("ic-1"))

"""An answer that names no checkpoint decides only what was waiting when it started.

Two id-less answers race while the agent puts up its next checkpoint the moment the
first is decided: neither may decide that next one, which nobody has seen.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from agent.daemon.procs import started_at
from common.errors import CheckpointError, NewCheckpointError
from common.paths import WorkspaceFiles
from common.schemas.base import utc_now
from common.workspace import answer, checkpoints
from tests.core.checkpoint_samples import closure

ROUNDS = 100


def put_up_next_when_decided(files: WorkspaceFiles, first: str, second: str) -> threading.Thread:
    """The agent's side: as soon as ``first`` is decided, ``second`` is pending."""

    def agent() -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = checkpoints.current(files)
            if found is not None and found.id == first and found.status != "pending":
                checkpoints.write(files, closure(second))
                return

    thread = threading.Thread(target=agent)
    thread.start()
    return thread


def id_less_approve(workspace: Path, started: datetime, outcomes: list[str]) -> None:
    """``harness approve AGENT`` begun at ``started``: what it decided, or its refusal.

    A random pause of a few milliseconds stands for the command's own start-up, so
    that some answers read the checkpoint file after the agent's next one is up.
    """
    time.sleep(random.uniform(0, 0.006))
    try:
        outcomes.append(answer.approve(workspace, None, None, not_after=started).id)
    except CheckpointError as e:
        outcomes.append(type(e).__name__)


def test_two_racing_id_less_answers_never_decide_a_newer_checkpoint(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path)
    decided_second = 0
    for round_no in range(ROUNDS):
        first, second = f"ic-{2 * round_no}", f"ic-{2 * round_no + 1}"
        checkpoints.write(files, closure(first))
        started = utc_now()  # both commands start while `first` waits
        agent = put_up_next_when_decided(files, first, second)
        outcomes: list[str] = []
        answerers = [
            threading.Thread(target=id_less_approve, args=(tmp_path, started, outcomes))
            for _ in range(2)
        ]
        for thread in answerers:
            thread.start()
        for thread in [*answerers, agent]:
            thread.join(timeout=10)
        decided_second += outcomes.count(second)
        assert outcomes.count(first) == 1, outcomes
        final = checkpoints.current(files)
        assert final is not None and final.id == second and final.status == "pending"
    assert decided_second == 0


def test_a_checkpoint_older_than_the_command_is_answered(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path)
    checkpoints.write(files, closure("ic-1"))

    decided = answer.approve(tmp_path, None, None, not_after=utc_now())

    assert decided.id == "ic-1" and decided.decision is not None and decided.decision.approved


def test_a_newer_checkpoint_gets_one_line_and_stays_pending(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path)
    before = utc_now() - timedelta(seconds=1)
    checkpoints.write(files, closure("ic-7"))

    with pytest.raises(NewCheckpointError) as caught:
        answer.reject(tmp_path, "no", not_after=before)

    assert str(caught.value) == (
        "a new checkpoint appeared: issue_closure (ic-7); run the command again"
    )
    pending = checkpoints.pending(files)
    assert pending is not None and pending.id == "ic-7"


def test_a_named_checkpoint_is_answered_whenever_it_appeared(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path)
    before = utc_now() - timedelta(seconds=1)
    checkpoints.write(files, closure("ic-9"))

    decided = answer.approve(tmp_path, None, None, checkpoint_id="ic-9", not_after=before)

    assert decided.decision is not None and decided.decision.approved


def test_the_process_start_is_before_anything_it_does() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        time.sleep(0.3)
        started = started_at(child.pid)
        assert started is not None
        assert utc_now() - timedelta(seconds=1) < started < utc_now() - timedelta(seconds=0.2)
    finally:
        child.kill()
        child.wait()
    assert started_at(os.getpid()) is not None

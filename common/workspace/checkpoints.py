"""The checkpoint files: open one, wait for its decision, answer it, log it.

The agent writes a pending checkpoint atomically and waits on inotify (no polling,
no timer: :mod:`common.inotify`). Any client (CLI, TUI, another TUI) answers through
:func:`answer`, which holds an exclusive lock for its read-modify-write: exactly
one decision counts, the second answer gets :class:`AlreadyDecidedError`.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

from common import decision_mac
from common.atomic import locked, read_model, read_model_or_none, write_model
from common.errors import AlreadyDecidedError, CheckpointError, NoPendingCheckpointError
from common.inotify import FolderWatch
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import (
    AnyDecision,
    Checkpoint,
    CheckpointAdapter,
    CheckpointFile,
    CheckpointLog,
)


def current(files: WorkspaceFiles) -> Checkpoint | None:
    """The checkpoint in ``.hitl_checkpoint.json``, pending or decided, if any."""
    stored = read_model_or_none(files.checkpoint, CheckpointFile)
    return stored.root if stored is not None else None


def pending(files: WorkspaceFiles) -> Checkpoint | None:
    """The checkpoint waiting for a decision, if any."""
    found = current(files)
    return found if found is not None and found.status == "pending" else None


def write(files: WorkspaceFiles, checkpoint: Checkpoint) -> None:
    """Write ``checkpoint`` as the current one (under the answer lock)."""
    with locked(files.checkpoint_lock):
        write_model(files.checkpoint, CheckpointFile(checkpoint))


def decided(checkpoint: Checkpoint, decision: AnyDecision) -> Checkpoint:
    """``checkpoint`` with ``decision`` attached, validated against its type."""
    data = checkpoint.model_dump(mode="json")
    data.update(status="decided", decision=decision.model_dump(mode="json"))
    try:
        return CheckpointAdapter.validate_python(data)
    except ValidationError as e:
        kind = type(decision).__name__
        why = str(e.errors()[0].get("msg", "")).removeprefix("Value error, ")
        raise CheckpointError(f"a {kind} does not answer {checkpoint.type.value}: {why}") from e


def signed(key: bytes, files: WorkspaceFiles, checkpoint: Checkpoint) -> Checkpoint:
    """The decided ``checkpoint`` with its decision's MAC (see :mod:`common.decision_mac`)."""
    decision = checkpoint.decision
    assert decision is not None
    mac = decision_mac.sign_decision(key, files.root, checkpoint, decision)
    return checkpoint.model_copy(update={"decision": decision.model_copy(update={"mac": mac})})


def answer(
    files: WorkspaceFiles,
    checkpoint_id: str | None,
    decision: AnyDecision,
    key: bytes | None = None,
) -> Checkpoint:
    """Decide the pending checkpoint as a client; the first answer wins.

    Args:
        files: the agent's workspace.
        checkpoint_id: the checkpoint the answerer saw; ``None`` answers whatever is pending.
        decision: the decision to record.
        key: the decision key (default: read from ``HARNESS_HOME``); the decision is
            signed with it, as the agent accepts no other.

    Raises:
        NoPendingCheckpointError: nothing is waiting.
        AlreadyDecidedError: someone else answered first (the message says who and when).
    """
    with locked(files.checkpoint_lock):
        found = current(files)
        if found is None:
            raise NoPendingCheckpointError("no checkpoint is waiting for a decision")
        if checkpoint_id is not None and found.id != checkpoint_id:
            raise AlreadyDecidedError(
                f"checkpoint {checkpoint_id} is no longer current (now {found.id})"
            )
        if found.status == "decided" and found.decision is not None:
            who = found.decision.decided_by
            when = found.decision.decided_at.isoformat(timespec="seconds")
            raise AlreadyDecidedError(
                f"checkpoint {found.id} was already decided by {who} at {when}"
            )
        result = signed(
            key if key is not None else decision_mac.load_key(), files, decided(found, decision)
        )
        write_model(files.checkpoint, CheckpointFile(result))
    return result


def decide_pending(
    files: WorkspaceFiles, shown: Checkpoint, decision: AnyDecision, key: bytes
) -> bool:
    """The agent's own decision (its timeout) on ``shown``, unless a client answered first.

    Under the answer lock like :func:`answer`, so a person's answer at the same moment
    either wins (``False``: nothing written) or comes second and is refused. It decides
    the agent's copy ``shown``, never the file's (the model may have rewritten that);
    a decided file without a valid MAC is no answer and is overwritten.
    """
    with locked(files.checkpoint_lock):
        found = current(files)
        if _is_decided(found, shown.id):
            assert found is not None
            if decision_mac.decision_problem(key, files.root, shown, found) is None:
                return False
        write_model(files.checkpoint, CheckpointFile(signed(key, files, decided(shown, decision))))
    return True


async def wait_for_decision(files: WorkspaceFiles, checkpoint_id: str) -> Checkpoint:
    """Block until the checkpoint ``checkpoint_id`` is decided and return it.

    The wait wakes only when a file in the workspace changes (inotify), never on a
    timer, so any number of agents can wait for hours at no cost.
    """
    async with FolderWatch(files.root) as watch:
        target = files.checkpoint.name
        while True:
            found = current(files)  # read after the watch is set: no change slips between
            if _is_decided(found, checkpoint_id):
                assert found is not None
                return found
            while not ({target, "*"} & await watch.changed()):
                pass


async def wait_for_signed_decision(
    files: WorkspaceFiles, shown: Checkpoint, key: bytes, on_forgery: Callable[[str], None]
) -> Checkpoint:
    """Block until ``shown`` has a decision a client signed, and return it.

    A decision without a valid MAC (written into the file by someone other than a
    client) is reported to ``on_forgery`` and undone: the agent writes its own
    pending copy back, so the checkpoint stays pending for a real answer.
    """
    while True:
        found = await wait_for_decision(files, shown.id)
        problem = decision_mac.decision_problem(key, files.root, shown, found)
        if problem is None:
            return found
        on_forgery(problem)
        pending_again = shown.model_copy(update={"status": "pending", "decision": None})
        with locked(files.checkpoint_lock):
            now = current(files)
            if _is_decided(now, shown.id):
                assert now is not None
                if decision_mac.decision_problem(key, files.root, shown, now) is None:
                    return now  # a client answered while the forgery was being undone
            write_model(files.checkpoint, CheckpointFile(pending_again))


def record(files: WorkspaceFiles, checkpoint: Checkpoint) -> None:
    """Append a decided checkpoint to the history once (resuming never logs it twice)."""
    log = read_model_or_none(files.checkpoint_log, CheckpointLog) or CheckpointLog()
    if any(entry.id == checkpoint.id for entry in log.entries):
        return
    write_model(files.checkpoint_log, CheckpointLog(entries=[*log.entries, checkpoint]))


def history(files: WorkspaceFiles) -> list[Checkpoint]:
    """Every decided checkpoint, oldest first."""
    if not files.checkpoint_log.exists():
        return []
    return read_model(files.checkpoint_log, CheckpointLog).entries


def _is_decided(found: Checkpoint | None, checkpoint_id: str) -> bool:
    return found is not None and found.id == checkpoint_id and found.status == "decided"

"""Which issue a checkpoint is about: what lets a person answer the right slot.

With issues worked in parallel, several slots ask their checkpoints one after another
and the same checkpoint type (issue_closure, regression_approval…) comes back for a
different issue each time. The TUI's dialog title, its slot rows and ``harness status``
all say which issue waits, and they ask here so they can never disagree.

Two harness-written sources, never the model's words: the checkpoint's context where
its type names the issue (:meth:`~common.workspace.kinds.base.CheckpointKind.issue`),
and otherwise the id a slot's checkpoint is given (``issue_closure-issue3-5``: the
kind, the issue, the slot's move count), so a type whose rules do not say still shows
its issue when a slot asked it.
"""

from __future__ import annotations

import re

from common.schemas.checkpoint import Checkpoint
from common.workspace.kinds import kind_of

#: ``<kind>-issue<iid>-<moves>``: the id of a checkpoint a slot asked.
SLOT_CHECKPOINT_ID = re.compile(r"\A[a-z_]+-issue(?P<iid>[0-9]{1,9})-[0-9]+\Z")


def slot_checkpoint_id(kind: str, iid: int, moves: int) -> str:
    """The id of a checkpoint a slot asks (the one grammar :func:`issue_in_id` reads)."""
    return f"{kind}-issue{iid}-{moves}"


def issue_in_id(checkpoint_id: str) -> int | None:
    """The issue a slot's checkpoint id names (``None``: not a slot's checkpoint)."""
    found = SLOT_CHECKPOINT_ID.match(checkpoint_id)
    return int(found["iid"]) if found is not None else None


def issue_of(checkpoint: Checkpoint) -> int | None:
    """The issue ``checkpoint`` is about: named by its context, else by its slot's id.

    ``None`` for a checkpoint about the run as a whole (project verification, the merge
    request, a regression before the merge request…).
    """
    named = kind_of(checkpoint).issue(checkpoint)
    return named if named is not None else issue_in_id(checkpoint.id)

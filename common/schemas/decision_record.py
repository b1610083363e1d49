"""One checkpoint decision as the tracker keeps it: what, who, by which rule, why, when.

Why a model of its own: the person's decisions lived only in the workspace's checkpoint
log, on one machine. The tracker (a note on GitLab, the milestone file in file-only
mode) is where reviewers look, so each decision is written there once, built from the
harness's own log (never from anything the model reported).
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from common.schemas.base import StrictModel
from common.schemas.checkpoint_type import CheckpointType


class DecisionRecord(StrictModel):
    """A decided checkpoint, in words a reviewer reads on the tracker."""

    checkpoint_id: str = Field(min_length=1)
    """The checkpoint's id: the key that makes the record once, across kills."""
    checkpoint_type: CheckpointType
    issue: int | None = Field(default=None, ge=1)
    """The issue the checkpoint is about (``None``: the run as a whole)."""
    approved: bool
    choice: str
    """The decision in words: ``approve``, ``reject``, ``approve: fix_now``,
    ``approve: issues #2, #3``… (file names in it are escaped)."""
    decided_by: str
    """``cli:<user>`` or ``tui:<user>`` for a person, ``auto-accept``, ``timeout``."""
    rule: str | None = None
    """The rule that decided (``None``: a person's own answer)."""
    reason: str | None = None
    """The person's words, if any (escaped wherever it is shown)."""
    decided_at: datetime

"""What every checkpoint type shares: the issue reference, the plain decision, the diff
excerpt and the checkpoint's common fields (WHAT HAPPENED / IF APPROVED / IF REJECTED)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now
from common.schemas.long_lines import LongLines


class IssueRef(StrictModel):
    """An issue as a checkpoint lists it."""

    iid: int
    title: str
    labels: list[str] = Field(default_factory=list)


class Decision(StrictModel):
    """Who decided what, and when."""

    approved: bool
    reason: str | None = None
    decided_by: str
    """``auto-accept``, ``timeout``, ``cli:<user>`` or ``tui:<user>``."""
    rule: str | None = None
    """Which rule decided, in words a person reads (``auto-accept: issue_closure=approve``,
    ``timeout after 5 min: default``); ``None`` for a person's own answer. Signed with
    the rest of the decision, so the model cannot claim a rule decided."""
    decided_at: datetime = Field(default_factory=utc_now)
    mac: str | None = None
    """HMAC-SHA256 by a client (or the agent's auto-accept) over the workspace, the
    checkpoint and this decision; a decision without a valid one does not count
    (see :mod:`common.decision_mac`)."""


class DiffExcerpt(StrictModel):
    """A diff a checkpoint shows: cut to a reviewable size, never silently."""

    stat: str
    """``git diff --stat``."""
    text: str
    range: str
    """The git range: ``git diff RANGE`` in the project shows the whole diff."""
    cut_at: int | None = None
    """Where ``text`` was cut (characters), ``None`` when it is whole."""
    long_lines: LongLines | None = None
    """The lines a person must read whole (very long, or padded with blanks), counted
    over the whole diff; ``None``: written before the harness counted them (the viewers
    count the stored text instead)."""


class CheckpointBase(StrictModel):
    """What every checkpoint shows: the seed's WHAT HAPPENED / IF APPROVED / IF REJECTED."""

    schema_version: Literal[1] = 1
    id: str
    """Unique within the workspace; a decision names the id it answers."""
    status: Literal["pending", "decided"] = "pending"
    created_at: datetime = Field(default_factory=utc_now)
    what_happened: list[str]
    to_decide: str
    if_approved: str
    if_rejected: str

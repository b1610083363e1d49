"""``.agent_exit.json``: the agent's own word on how it ended.

Written by the agent process just before it exits, so that a daemon restarted
after the fact can tell a finished agent from one that died.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now


class ExitState(StrEnum):
    """How an agent stands, as the long-horizon seed's harness-enforced workers report it."""

    CONTINUING = "continuing"
    """Running, waiting for a person, or stopped with work left (``harness resume``)."""
    COMPLETE = "complete"
    """Every phase done: the merge request (or the branch) holds the work."""
    PARTIAL = "partial"
    """Every phase done and the merge request (or the branch) holds the work, but issues
    were set aside or left open, or spec sections no closed issue covers."""
    FAILED = "failed"
    """The run could not go on; the reason says why."""
    BROKEN = "broken"
    """The project's own tests cannot run, before the agent touched anything."""


class AgentExit(StrictModel):
    schema_version: Literal[1] = 1
    pid: int
    outcome: Literal["done", "failed", "stopped"]
    exit_code: int
    reason: str = ""
    ended_at: datetime = Field(default_factory=utc_now)

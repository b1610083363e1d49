"""``.agent_exit.json``: the agent's own word on how it ended.

Written by the agent process just before it exits, so that a daemon restarted
after the fact can tell a finished agent from one that died.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel, utc_now
from common.schemas.exit_state import ExitState as ExitState


class AgentExit(StrictModel):
    schema_version: Literal[1] = 1
    pid: int
    outcome: Literal["done", "failed", "stopped"]
    exit_code: int
    reason: str = ""
    ended_at: datetime = Field(default_factory=utc_now)

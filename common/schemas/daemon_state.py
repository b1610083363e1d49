"""``daemon_state.json`` (the registry) and ``daemon.json`` (how clients find the daemon)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from common.protocol_wire import PROTOCOL_VERSION
from common.schemas.agent_status import AgentStatus as AgentStatus
from common.schemas.base import StrictModel, utc_now
from common.schemas.spec import AgentSpec


class AgentRecord(StrictModel):
    """One agent in the registry.

    ``pid`` together with ``pid_start_ticks`` (field 22 of ``/proc/PID/stat``) tells a
    live agent from a reused pid after the daemon restarts.
    """

    name: str
    spec: AgentSpec
    workspace: Path
    log_file: Path
    pid: int | None = None
    pid_start_ticks: int | None = None
    started_at: datetime = Field(default_factory=utc_now)
    stopped_by_user: bool = False


class DaemonState(StrictModel):
    schema_version: Literal[1] = 1
    agents: list[AgentRecord] = Field(default_factory=list)
    next_number: int = 1
    """Agents are named ``agent_<n>``; numbers are never reused."""


class DaemonStatusFile(StrictModel):
    """Written atomically at start; a dead pid means "not running"."""

    schema_version: Literal[1] = 1
    pid: int
    socket: Path
    protocol_version: int = PROTOCOL_VERSION
    started_at: datetime = Field(default_factory=utc_now)

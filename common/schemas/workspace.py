"""``.workspace_info.json``: the agent's configuration, written once, toggled by clients."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.base import StrictModel, utc_now
from common.schemas.spec import AgentSpec


class WorkspaceInfo(StrictModel):
    """What an agent needs to start (or resume) from its workspace alone."""

    schema_version: Literal[1] = 1
    spec: AgentSpec
    spec_slug: str
    feature_branch: str
    """The branch the agent creates from ``spec.target_branch`` and commits to."""
    auto_accept: AutoAcceptRules = Field(default_factory=AutoAcceptRules.off)
    """Per-agent rules (a bool in workspaces written before them: all or nothing); read
    at every checkpoint, so a change applies from the next one."""
    auto_accept_serial: int = 0
    """How many times a client set the rules; an older setting put back is refused."""
    auto_accept_mac: str | None = None
    """The client's MAC over the rules and their serial; without a valid one every
    checkpoint asks."""
    created_at: datetime = Field(default_factory=utc_now)

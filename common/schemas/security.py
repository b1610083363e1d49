"""``.security_counts.json``: what the harness hid in one workspace (redactions)."""

from __future__ import annotations

from typing import Literal

from common.schemas.base import StrictModel


class SecurityCounts(StrictModel):
    """Counts shown by ``harness status``; written by the agent."""

    schema_version: Literal[1] = 1
    redactions: int = 0
    """Secrets replaced in logs, checkpoint files, tracker text and tool output."""

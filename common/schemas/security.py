"""``.security_counts.json``: what the harness refused or hid in one workspace."""

from __future__ import annotations

from typing import Literal

from common.schemas.base import StrictModel


class SecurityCounts(StrictModel):
    """Counts shown by ``harness status``; written by the agent."""

    schema_version: Literal[1] = 1
    forgeries: int = 0
    """Decisions or auto-accept switches without a valid client MAC, rejected."""
    redactions: int = 0
    """Secrets replaced in logs, checkpoint files, tracker text and tool output."""
    last_forgery: str | None = None
    """The latest rejected forgery, in one line."""

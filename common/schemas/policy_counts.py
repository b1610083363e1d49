"""``.policy_audit.json``: how many tool calls the policy allowed and denied, and forgeries."""

from __future__ import annotations

from typing import Literal

from common.schemas.base import StrictModel


class PolicyCounts(StrictModel):
    """Counts kept in the workspace, so ``harness status`` shows them after the agent ended."""

    schema_version: Literal[1] = 1
    allowed: int = 0
    """PreToolUse decisions that let the tool run."""
    denied: int = 0
    """PreToolUse decisions that refused the tool call."""
    forgeries: int = 0
    """Rejected decisions or switches that did not come from a client."""
    endpoint_refused: int = 0
    """Requests the model endpoint refused: another path, or no session running."""

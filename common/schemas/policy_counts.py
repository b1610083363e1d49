"""``.policy_audit.json``: how many tool calls the policy allowed and denied, and forgeries."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel


class DenialClass(StrEnum):
    """Why the policy refused a tool call, as a fixed class: what metrics may name.

    The reason itself quotes the model's command, so it never becomes a label.
    """

    COMMAND = "command"
    """A Bash command the command policy refused, for a reason not named below."""
    COMMAND_NETWORK = "command_network"
    """A Bash command that would reach another host or open a port."""
    COMMAND_GIT = "command_git"
    """A git command that is the harness's to run, or that would run a program."""
    COMMAND_TOO_COMPLEX = "command_too_complex"
    """A Bash command the harness could not parse or follow: written more simply, it may pass."""
    OUTSIDE_PROJECT = "outside_project"
    """A file tool aimed outside the project."""
    PROTECTED_WRITE = "protected_write"
    """A file tool writing where the harness protects (``.git``, ``.pth``, the workspace…)."""


class PolicyCounts(StrictModel):
    """Counts kept in the workspace, so ``harness status`` shows them after the agent ended."""

    schema_version: Literal[1] = 1
    allowed: int = 0
    """PreToolUse decisions that let the tool run."""
    denied: int = 0
    """PreToolUse decisions that refused the tool call."""
    denied_by_class: dict[DenialClass, int] = Field(default_factory=dict)
    """The denials by class (those counted before classes were kept are in ``denied`` only)."""
    forgeries: int = 0
    """Rejected decisions or switches that did not come from a client."""
    endpoint_refused: int = 0
    """Requests the model endpoint refused: another path, or no session running."""
    host_refused: int = 0
    """Connections the sandbox's filtering proxy refused: a ``host:port`` not in the
    allowlist (``sandbox_hosts``), or a listed name that resolved to this machine."""

"""How an agent stands when it ends: its own small module, so the front ends' first
screens name an exit state without building the exit file's schema."""

from __future__ import annotations

from enum import StrEnum


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

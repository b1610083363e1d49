"""The steps of an issue in a slot: their own small module, so the front ends' first
screens name a step without building the slot's schema."""

from __future__ import annotations

from enum import StrEnum


class SlotStep(StrEnum):
    """The steps of one issue in a slot, in order (a conflict goes back to coding)."""

    SELECTION = "selection"
    """Chosen: its worktree and branch are being made, its baseline measured."""
    CODING = "coding"
    """A session works in the worktree; the harness runs the gates and commits."""
    REGRESSION = "regression"
    """Tests that passed before fail: a person picks an action."""
    CLOSURE = "closure"
    """A person reviews the issue's diff and tests before it is merged and closed."""
    MERGING = "merging"
    """Accepted: its branch is being merged into the feature branch."""

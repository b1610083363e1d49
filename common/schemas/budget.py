"""An agent's budgets: how much work it may spend before a person is asked."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel

DEFAULT_SESSIONS_PER_ISSUE = 3
DEFAULT_TURNS_PER_SESSION = 80


class Budgets(StrictModel):
    """Limits per agent; ``None`` means no limit.

    Reaching ``sessions_per_issue`` sets the issue aside; reaching ``cost_usd`` or
    ``wall_time_min`` stops at the budget_reached checkpoint; ``turns_per_session``
    ends a session (the next one continues from the harness's handoff).
    """

    sessions_per_issue: int = Field(default=DEFAULT_SESSIONS_PER_ISSUE, ge=1)
    """Sessions one issue gets before it is set aside for a person."""
    turns_per_session: int = Field(default=DEFAULT_TURNS_PER_SESSION, ge=1)
    """The CLI's ``max_turns`` for every session."""
    cost_usd: float | None = Field(default=None, gt=0)
    """Total cost of the run's sessions, in US dollars."""
    wall_time_min: float | None = Field(default=None, gt=0)
    """Total time of the run's sessions, in minutes (time at checkpoints not counted)."""

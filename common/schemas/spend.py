"""What sessions cost: tokens of every billed kind, dollars, sessions and their time."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class Spend(StrictModel):
    """Summed figures of sessions (of a whole run, or of one issue).

    ``tokens_in`` counts every billed kind of input token (uncached, cache read and
    cache creation); the two cache fields say how much of it was which.
    """

    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    cache_read: int = Field(default=0, ge=0)
    """Part of ``tokens_in`` read from the prompt cache."""
    cache_creation: int = Field(default=0, ge=0)
    """Part of ``tokens_in`` written to the prompt cache."""
    cost_usd: float = Field(default=0.0, ge=0)
    """Per session the larger of the CLI's own figure and what the agent's model endpoint
    charged (every request it forwarded, the model's own too); 0 for the embedded model.
    The token counts are taken the same way."""
    sessions: int = Field(default=0, ge=0)
    session_s: float = Field(default=0.0, ge=0)
    """The sessions' own wall time (never the time a checkpoint waited for a person)."""

    def plus(self, other: Spend) -> Spend:
        """The sum of both."""
        return Spend(
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            cache_read=self.cache_read + other.cache_read,
            cache_creation=self.cache_creation + other.cache_creation,
            cost_usd=round(self.cost_usd + other.cost_usd, 6),
            sessions=self.sessions + other.sessions,
            session_s=round(self.session_s + other.session_s, 3),
        )

    def line(self) -> str:
        """One line for notes, logs and the CLI."""
        return (
            f"{self.sessions} session(s), {self.tokens_in} tokens in ({self.cache_read} cache "
            f"read, {self.cache_creation} cache write) / {self.tokens_out} out, "
            f"${self.cost_usd:.4f}, {self.session_s:.1f} s"
        )

"""What an agent's sessions have used so far: tokens and cost, summed over its whole run."""

from __future__ import annotations

from common.schemas.base import StrictModel


class Spend(StrictModel):
    """Cumulative session figures, kept in ``AgentState.spend`` across restarts.

    The orchestrator adds each finished session; the daemon passes the sum to
    clients in ``AgentInfo.spend``, so the TUI and CLI show it without reading logs.
    """

    sessions: int = 0
    """Sessions that finished (a retried failure has no figures and is not counted)."""
    input_tokens: int = 0
    """All input tokens, cache reads and writes included (all are billed)."""
    output_tokens: int = 0
    cache_read_tokens: int = 0
    """Part of ``input_tokens`` read from the prompt cache."""
    cache_creation_tokens: int = 0
    """Part of ``input_tokens`` written to the prompt cache."""
    cost_usd: float = 0.0
    """Sum of the sessions' reported cost; the embedded model's sessions cost 0."""
    cost_unknown_sessions: int = 0
    """Sessions whose cost the CLI did not report (``cost_usd`` leaves them out)."""

    def plus(
        self,
        *,
        input_tokens: int,
        output_tokens: int,
        cache_read_tokens: int,
        cache_creation_tokens: int,
        cost_usd: float | None,
    ) -> Spend:
        """This spend with one more session added."""
        return Spend(
            sessions=self.sessions + 1,
            input_tokens=self.input_tokens + input_tokens,
            output_tokens=self.output_tokens + output_tokens,
            cache_read_tokens=self.cache_read_tokens + cache_read_tokens,
            cache_creation_tokens=self.cache_creation_tokens + cache_creation_tokens,
            cost_usd=self.cost_usd + (cost_usd or 0.0),
            cost_unknown_sessions=self.cost_unknown_sessions + (cost_usd is None),
        )

"""The run's spend: what each session cost, for the run and for its issue, and what
the cost budget has left.

Apart from the sessions that incur it so that every way a session ends (with its
figures, or failed after the endpoint forwarded requests that were billed all the
same) is charged by the same rules, to the run and to the issue it worked on; with
several issues at once, each issue's spend stays its own.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.core.log import AgentLog
from agent.core.run.run_state import StateStore
from common.schemas.budget import Budgets
from common.schemas.spend import Spend

if TYPE_CHECKING:
    from agent.core.endpoint.endpoint_meter import EndpointMeter
    from agent.core.session.result import SessionResult
    from agent.core.session.session import SessionConfig


@dataclass
class Ledger:
    """Charges sessions to the state (the run's ``spend`` and ``issue_spend``)."""

    store: StateStore
    log: AgentLog
    spec_budgets: Budgets
    """The spec's budgets; those a person raised at budget_reached take their place."""
    meter: EndpointMeter | None = None
    """The model endpoint's ledger: what it forwarded for a session that failed."""

    @property
    def budgets(self) -> Budgets:
        """The budgets in force: the spec's, or those a person raised at budget_reached."""
        return self.store.state.budgets or self.spec_budgets

    def cost_left(self) -> float | None:
        """What the cost budget has left for the run (``None``: no cost limit)."""
        limit = self.budgets.cost_usd
        if limit is None:
            return None
        return max(limit - self.store.state.spend.cost_usd, 0.0)

    def budgeted(self, config: SessionConfig) -> SessionConfig:
        """``config`` with what the cost budget has left (unchanged without a limit)."""
        left = self.cost_left()
        if left is None:
            return config
        return dataclasses.replace(config, cost_limit_usd=left)

    def account(self, result: SessionResult, issue: int | None) -> Spend:
        """Add a session's figures to the run's spend and to its issue's; return them."""
        spent = Spend(
            tokens_in=result.input_tokens,
            tokens_out=result.output_tokens,
            cache_read=result.cache_read_tokens,
            cache_creation=result.cache_creation_tokens,
            cost_usd=result.cost_usd or 0.0,
            sessions=1,
            session_s=result.duration_ms / 1000,
        )
        self.add(spent, issue)
        return spent

    def account_failed(self, label: str, issue: int | None) -> None:
        """Add what the model endpoint forwarded for a session that failed to the spend.

        A failed session has no figures of its own, but its requests were billed.
        """
        meter = self.meter
        spent = meter.take_last(f"session {label}") if meter is not None else None
        if spent is None or spent.requests == 0:
            return
        self.log(f"session {label} failed after the model endpoint forwarded {spent.line()}")
        self.add(
            Spend(
                tokens_in=spent.input_tokens,
                tokens_out=spent.output_tokens,
                cache_read=spent.cache_read_tokens,
                cache_creation=spent.cache_creation_tokens,
                cost_usd=spent.cost_usd,
            ),
            issue,
        )

    def add(self, spent: Spend, issue: int | None) -> None:
        """Charge ``spent`` to the run and, when it worked on one, to ``issue``."""
        with self.store.editing() as state:
            if issue is not None:
                state.issue_spend[issue] = state.issue_spend.get(issue, Spend()).plus(spent)
            state.spend = state.spend.plus(spent)

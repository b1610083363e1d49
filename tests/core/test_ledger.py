"""The ledger: each session's figures go to the run and to its own issue, once."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.core.log import AgentLog
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.session.result import SessionResult
from common.atomic import read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets


def result(cost: float, tokens_in: int) -> SessionResult:
    return SessionResult(
        turns=3,
        cost_usd=cost,
        input_tokens=tokens_in,
        output_tokens=10,
        duration_ms=1500,
        denials=0,
        touched=set(),
    )


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    log = AgentLog(io.StringIO())
    store = StateStore(WorkspaceFiles(tmp_path), AgentState(), log)
    return Ledger(store, log, Budgets(cost_usd=1.0))


def test_each_issue_keeps_its_own_spend_and_the_run_the_sum(ledger: Ledger) -> None:
    ledger.account(result(0.25, 100), 1)
    ledger.account(result(0.125, 40), 2)
    ledger.account(result(0.25, 100), 1)
    ledger.account(result(0.0625, 7), None)  # a session of no issue (the initializer)
    state = ledger.store.state
    assert state.issue_spend[1].cost_usd == pytest.approx(0.5)
    assert (state.issue_spend[1].sessions, state.issue_spend[1].tokens_in) == (2, 200)
    assert (state.issue_spend[2].sessions, state.issue_spend[2].tokens_in) == (1, 40)
    assert sorted(state.issue_spend) == [1, 2]
    assert state.spend.sessions == 4 and state.spend.tokens_in == 247
    assert state.spend.cost_usd == pytest.approx(0.6875)
    assert state.spend.session_s == pytest.approx(6.0)
    saved = read_model_or_none(ledger.store.files.state, AgentState)
    assert saved is not None and saved.issue_spend == state.issue_spend  # written, not just held
    assert ledger.cost_left() == pytest.approx(0.3125)


def test_a_failed_session_without_a_meter_charges_nothing(ledger: Ledger) -> None:
    ledger.account_failed("coding #3 (session 1)", 3)
    assert ledger.store.state.spend.sessions == 0 and ledger.store.state.issue_spend == {}


def test_a_raised_budget_replaces_the_spec_s(ledger: Ledger) -> None:
    ledger.account(result(3.0, 1), 1)
    assert ledger.cost_left() == 0.0
    with ledger.store.editing() as state:
        state.budgets = Budgets(cost_usd=5.0)
    assert ledger.budgets.cost_usd == 5.0 and ledger.cost_left() == pytest.approx(2.0)

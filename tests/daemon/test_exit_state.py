"""The seed's exit states, as every client shows them."""

from __future__ import annotations

import pytest

from agent.daemon.agent_view import exit_state
from common.schemas.agent_state import AgentState, Phase
from common.schemas.coverage import SpecCoverage
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState

WHOLE = SpecCoverage(sections=["A", "B"])
ASIDE = SpecCoverage(sections=["A"], set_aside=[3])
UNCOVERED = SpecCoverage(sections=["A", "B"], uncovered=["B"])
OPEN = SpecCoverage(sections=["A"], left_open=[4])


@pytest.mark.parametrize(
    ("status", "state", "expected"),
    [
        (AgentStatus.RUNNING, AgentState(), ExitState.CONTINUING),
        (AgentStatus.WAITING, AgentState(), ExitState.CONTINUING),
        (AgentStatus.STOPPED, None, ExitState.CONTINUING),
        (AgentStatus.DONE, AgentState(phase=Phase.DONE), ExitState.COMPLETE),
        (AgentStatus.FAILED, AgentState(phase=Phase.FAILED), ExitState.FAILED),
        (AgentStatus.FAILED, None, ExitState.FAILED),
        (AgentStatus.FAILED, AgentState(phase=Phase.FAILED, broken=True), ExitState.BROKEN),
        (AgentStatus.DONE, AgentState(phase=Phase.DONE, coverage=WHOLE), ExitState.COMPLETE),
        (AgentStatus.DONE, AgentState(phase=Phase.DONE, coverage=ASIDE), ExitState.PARTIAL),
        (AgentStatus.DONE, AgentState(phase=Phase.DONE, coverage=UNCOVERED), ExitState.PARTIAL),
        (AgentStatus.DONE, AgentState(phase=Phase.DONE, coverage=OPEN), ExitState.PARTIAL),
        (AgentStatus.DONE, AgentState(phase=Phase.DONE, set_aside=[3]), ExitState.PARTIAL),
        (AgentStatus.FAILED, AgentState(phase=Phase.FAILED, coverage=ASIDE), ExitState.FAILED),
        (AgentStatus.STOPPED, AgentState(coverage=UNCOVERED), ExitState.CONTINUING),
    ],
    ids=[
        "running",
        "waiting",
        "stopped",
        "done",
        "failed",
        "failed-no-state",
        "broken",
        "done-whole",
        "done-set-aside",
        "done-uncovered",
        "done-left-open",
        "done-set-aside-before-coverage",
        "failed-with-gaps",
        "stopped-with-gaps",
    ],
)
def test_exit_state(status: AgentStatus, state: AgentState | None, expected: ExitState) -> None:
    assert exit_state(status, state) is expected

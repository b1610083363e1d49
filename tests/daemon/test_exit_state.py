"""The seed's exit states, as every client shows them."""

from __future__ import annotations

import pytest

from agent.daemon.agent_view import exit_state
from common.schemas.agent_state import AgentState, Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState


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
    ],
)
def test_exit_state(status: AgentStatus, state: AgentState | None, expected: ExitState) -> None:
    assert exit_state(status, state) is expected

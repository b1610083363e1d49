"""A finished agent that left work undone reads ``partial`` in the agent list, in its own
colour, never ``done``."""

from __future__ import annotations

from pathlib import Path

from common.schemas.agent_state import Phase
from common.schemas.coverage import SpecCoverage
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from tests.tui.fakes import agent_info
from tui import labels
from tui.widgets.agent_list import cells


def test_a_partial_run_reads_partial_in_yellow() -> None:
    done = agent_info("agent_1", Path("/srv/ws"), status=AgentStatus.DONE, phase=Phase.DONE)
    partial = done.model_copy(
        update={"exit_state": ExitState.PARTIAL, "coverage": SpecCoverage(set_aside=[3])}
    )

    assert labels.status(partial) == "partial"
    assert str(cells(partial)["status"].style) == "bold yellow"
    complete = done.model_copy(update={"exit_state": ExitState.COMPLETE})
    assert labels.status(complete) == "done"
    assert str(cells(complete)["status"].style) == "cyan"

"""An agent asked for ``"parallel": N`` > 1 stops at start with one line while the slots'
own sandboxes are not built: never silently one issue at a time, never a slot's session
in the project's sandbox."""

from __future__ import annotations

import tempfile
from pathlib import Path

from agent.control.demo import prepare_demo
from common.atomic import read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.exit_status import AgentExit
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, start_agent


def test_an_agent_asked_for_parallel_issues_says_it_cannot_yet() -> None:
    root = Path(tempfile.mkdtemp(prefix="par-", dir="/tmp"))
    spec = prepare_demo(root / "demo", True).model_copy(update={"parallel": 3})
    files = WorkspaceFiles(prepare_workspace(spec))

    assert finish(start_agent(files), timeout=60) == 1, log_text(files)

    exit_status = read_model_or_none(files.exit_status, AgentExit)
    assert exit_status is not None and exit_status.outcome == "failed"
    assert exit_status.reason == (
        "parallel 3: issues in parallel are not available yet (each slot's own sandbox is "
        'still to build); set "parallel": 1'
    )
    state = read_model_or_none(files.state, AgentState)
    assert state is None or state.phase is Phase.PROJECT_VERIFICATION

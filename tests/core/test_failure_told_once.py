"""A run's failure is told once in its log, not by three lines that say the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Run
from agent.core.runner import run_to_end
from agent.core.stages import HANDLERS
from agent.process import main as agent_process
from common.atomic import read_model_or_none
from common.errors import HarnessError, ProjectBrokenError
from common.schemas.agent_state import Phase
from common.schemas.exit_status import AgentExit
from tests.core.runs import logged, make_run

REASON = "the model endpoint refused the key (nonce 7f3a)"


@pytest.mark.parametrize("error", [HarnessError, ProjectBrokenError])
async def test_a_failure_is_one_line_in_the_log_and_the_exit_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: type[HarnessError]
) -> None:
    async def fails(run: Run) -> None:
        raise error(REASON)

    monkeypatch.setitem(HANDLERS, Phase.PROJECT_VERIFICATION, fails)
    run = make_run(tmp_path)

    outcome, reason = await run_to_end(run)
    code = agent_process.record_end(run.files, run.log, outcome, reason)

    text = logged(run)
    assert (outcome, reason, code) == ("failed", REASON, agent_process.EXIT_CODES["failed"])
    assert text.count(REASON) == 1, text
    assert "phase → failed (" in text
    assert text.rstrip().endswith("agent ended: failed")
    exited = read_model_or_none(run.files.exit_status, AgentExit)
    assert exited is not None and exited.reason == REASON  # the daemon still shows why


async def test_a_stop_is_told_by_the_end_line_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def stops(run: Run) -> None:
        raise StopRun("paused at budget_reached (nonce 7f3a)")

    monkeypatch.setitem(HANDLERS, Phase.PROJECT_VERIFICATION, stops)
    run = make_run(tmp_path)

    outcome, reason = await run_to_end(run)
    agent_process.record_end(run.files, run.log, outcome, reason)

    text = logged(run)
    assert text.count("nonce 7f3a") == 1, text
    assert "agent ended: stopped — paused at budget_reached" in text

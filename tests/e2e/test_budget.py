"""Two rows of the matrix that need a person's answer, through the real SDK and CLI:

- the cost budget: a Claude model name (so the CLI prices every request) answered by the
  embedded model's playbook server as a gateway; the agent pauses at budget_reached
  showing the spend, and a raised budget lets it finish (the project has no ruff, so the
  lint preset is "not available" and the first session's work is accepted);
- a regression still there before the merge request stops at regression_approval.

The agent pauses at budget_reached showing the spend; a raised budget lets it finish.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent.model.playbook import load_playbook
from agent.model.server import PlaybookServer
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.budget import Budgets
from common.schemas.checkpoint import (
    BudgetReachedCheckpoint,
    CheckpointType,
    RegressionApprovalCheckpoint,
)
from common.schemas.milestone import FileMilestone
from common.workspace import answer, checkpoints
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import REPO, finish, log_text, next_pending, start_agent
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
PRICED_MODEL = "claude-sonnet-4-5"
BUDGET_USD = 0.01


def start_priced_agent(files: WorkspaceFiles, gateway: str) -> subprocess.Popen[bytes]:
    """The agent with the gateway's address and a dummy key, as a user's shell gives them."""
    log = (files.logs / "e2e.log").open("ab")
    env = {**os.environ, "ANTHROPIC_BASE_URL": gateway, "ANTHROPIC_API_KEY": "sk-test-dummy"}
    return subprocess.Popen(
        [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


async def test_the_cost_budget_pauses_at_a_checkpoint_showing_the_spend() -> None:
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2c-", dir="/tmp")))
    spec = local_spec(project, DATA / "lint-spec.md", None).model_copy(
        update={
            "model": PRICED_MODEL,
            "auto_accept": AutoAcceptRules.off(),
            "budgets": Budgets(cost_usd=BUDGET_USD),
        }
    )
    files = WorkspaceFiles(prepare_workspace(spec))
    with PlaybookServer(load_playbook(DATA / "lint-playbook.json")) as server:
        agent = start_priced_agent(files, server.url)
        try:
            budget: BudgetReachedCheckpoint | None = None
            while True:
                pending = await next_pending(files, agent, timeout=90)
                if isinstance(pending, BudgetReachedCheckpoint) and budget is None:
                    budget = pending
                    answer.approve(files.root, "raise:5", None, checkpoint_id=pending.id)
                    continue
                answer.approve(files.root, None, None, checkpoint_id=pending.id)
                if pending.type is CheckpointType.MR_REVIEW:
                    break
            code = await asyncio.to_thread(finish, agent, 60)
        finally:
            if agent.poll() is None:
                agent.kill()

    assert code == 0, log_text(files)
    assert budget is not None, "the budget was never reached"
    spend = budget.context.spend
    assert spend.cost_usd >= BUDGET_USD
    assert spend.sessions == 1, "reached after the initializer, before any coding session"
    assert spend.tokens_in > 0 and spend.tokens_out > 0
    assert budget.context.reached == [f"cost: ${spend.cost_usd:.4f} of ${BUDGET_USD:.4f}"]
    assert f"spent so far: {spend.line()}" in budget.what_happened
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE
    assert state.budgets is not None and state.budgets.cost_usd == 5
    assert state.issue_spend[1].cost_usd > 0
    decided = [c for c in checkpoints.history(files) if isinstance(c, BudgetReachedCheckpoint)]
    assert [c.decision.action.value for c in decided if c.decision] == ["raise"]


async def test_a_regression_left_at_the_end_stops_the_mr_at_regression_approval() -> None:
    """Issue #1 breaks an existing test; the person defers it to a bug issue the model
    cannot fix (set aside); the full suite before the MR finds the regression again."""
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2m-", dir="/tmp")))
    spec = local_spec(
        project, DATA / "late-regression-spec.md", DATA / "late-regression-playbook.json"
    ).model_copy(update={"auto_accept": AutoAcceptRules.off()})
    files = WorkspaceFiles(prepare_workspace(spec))
    agent = start_agent(files)
    asked: list[RegressionApprovalCheckpoint] = []
    try:
        while True:
            pending = await next_pending(files, agent, timeout=90)
            if isinstance(pending, RegressionApprovalCheckpoint):
                asked.append(pending)
                answer.approve(files.root, "defer", None, checkpoint_id=pending.id)
                continue
            answer.approve(files.root, None, None, checkpoint_id=pending.id)
            if pending.type is CheckpointType.MR_REVIEW:
                break
        code = await asyncio.to_thread(finish, agent, 60)
    finally:
        if agent.poll() is None:
            agent.kill()

    assert code == 0, log_text(files)
    during, before_mr = asked
    assert during.context.issue_iid == 1
    assert before_mr.context.issue_iid is None, "the second one is the check before the MR"
    assert before_mr.context.newly_failing == ["tests/test_base.py::test_base"]
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE
    assert state.set_aside == [2]
    assert state.accepted_regressions == ["tests/test_base.py::test_base"]
    record = read_model(files.milestone, FileMilestone).merge_request
    assert record is not None
    assert "- Deferred regression: `tests/test_base.py::test_base`" in record.description
    assert "- #2: `Regression after #1" in record.description
    history = [move.to_phase for move in state.history]
    at = history.index(Phase.MR_PHASE_TRANSITION)
    assert history[at + 1] is Phase.REGRESSION_APPROVAL

"""The cost budget, through the real SDK and CLI: a Claude model name (so the CLI prices
every request) answered by the embedded model's playbook server as a gateway.

The project has no ruff, so the lint preset is "not available" and the first session's
work is accepted.

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

from agent.control import answer
from agent.core import checkpoints
from agent.core.workspace import prepare_workspace
from agent.model.playbook import load_playbook
from agent.model.server import PlaybookServer
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.budget import Budgets
from common.schemas.checkpoint import BudgetReachedCheckpoint, CheckpointType
from tests.e2e.agents import REPO, finish, log_text, next_pending
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
        [sys.executable, "-m", "agent.cli", "--workspace", str(files.root)],
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
            "auto_accept": False,
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

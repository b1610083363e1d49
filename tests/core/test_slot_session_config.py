"""A session in a slot's worktree: the command policy bound to the worktree, and sandboxed
only with an entrance of its own (the shared sandbox wrapper is bound to the project)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.core.endpoint.endpoint_meter import EndpointMeter, EndpointSpend
from agent.core.log import AgentLog
from agent.core.policy.context import PolicyContext
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.run.session_retries import Sessions
from agent.core.session.hooks import PolicySetup
from agent.core.session.session import SessionConfig
from common.errors import SessionError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets


@contextlib.asynccontextmanager
async def entrance(_window: EndpointSpend, work_tree: Path) -> AsyncIterator[Path]:
    yield work_tree / "claude"


def sessions(tmp_path: Path, config: SessionConfig) -> Sessions:
    log = AgentLog(io.StringIO())
    store = StateStore(WorkspaceFiles(tmp_path / "ws"), AgentState(), log)
    return Sessions(config, store, Ledger(store, log, Budgets()), log)


def test_a_worktree_session_is_judged_against_its_worktree(tmp_path: Path) -> None:
    project, tree = tmp_path / "project", tmp_path / "trees" / "issue-1"
    policy = PolicySetup(PolicyContext.for_project(project, test_command="pytest -q"))
    config = SessionConfig(project_dir=project, model=None, policy=policy)

    slot = sessions(tmp_path, config).config_for(tree)

    assert slot.project_dir == tree
    assert slot.policy is not None and slot.policy.context.project_dir == tree.resolve()
    assert slot.policy.context.preset_commands == policy.context.preset_commands
    assert config.policy is policy and policy.context.project_dir == project.resolve()
    assert sessions(tmp_path, config).config_for(project) is config


def test_sandboxed_a_worktree_session_needs_an_entrance_of_its_own(tmp_path: Path) -> None:
    project, tree = tmp_path / "project", tmp_path / "trees" / "issue-1"
    shared = SessionConfig(
        project_dir=project, model=None, cli_path=tmp_path / "claude", sandboxed=True
    )

    with pytest.raises(SessionError, match="needs a sandbox of its own") as refused:
        sessions(tmp_path, shared).config_for(tree)
    assert refused.value.retryable is False

    own = SessionConfig(
        project_dir=project,
        model=None,
        cli_path=tmp_path / "claude",
        sandboxed=True,
        meter=EndpointMeter(priced=False),
        entrance=entrance,
    )
    assert sessions(tmp_path, own).config_for(tree).project_dir == tree

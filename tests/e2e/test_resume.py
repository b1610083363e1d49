"""An agent SIGKILLed in any phase and started again resumes where it stopped."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys

import pytest

from common.atomic import read_model
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.milestone import FileMilestone
from common.workspace import answer, checkpoints, git
from tests.e2e.agents import (
    demo_workspace,
    finish,
    log_text,
    next_pending,
    phase_reached,
    start_agent,
)

pytestmark = pytest.mark.slow


def kill(agent: subprocess.Popen[bytes]) -> None:
    """SIGKILL the agent's whole process group (the CLI and its tools with it)."""
    os.killpg(agent.pid, signal.SIGKILL)
    agent.wait(timeout=10)


async def test_killed_at_every_checkpoint_and_mid_session_the_agent_resumes() -> None:
    spec, files = demo_workspace(auto_accept=False)
    agent = start_agent(files)
    resumed: list[CheckpointType] = []
    killed_mid_session = False
    try:
        while True:
            try:
                pending = await next_pending(files, agent)
            except AssertionError:
                break
            kill(agent)
            agent = start_agent(files)
            again = await next_pending(files, agent)
            assert again.id == pending.id, "a resumed agent must reopen the same checkpoint"
            resumed.append(again.type)
            answer.approve(files.root, None, None)
            if again.type is CheckpointType.ISSUE_SELECTION and not killed_mid_session:
                await phase_reached(files, Phase.CODING)
                await asyncio.sleep(0.4)  # inside the coding session
                kill(agent)
                killed_mid_session = True
                agent = start_agent(files)
        assert finish(agent) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            kill(agent)

    assert killed_mid_session
    assert set(resumed) == set(CheckpointType) - {
        CheckpointType.REGRESSION_APPROVAL,
        CheckpointType.BUDGET_REACHED,
        CheckpointType.ENRICHMENT_SCOPE,  # the demo's enrichment keeps its issue's scope
        CheckpointType.MERGE_CONFLICT,  # one issue at a time: no branch to merge
    }
    assert read_model(files.state, AgentState).phase is Phase.DONE
    milestone = read_model(files.milestone, FileMilestone)
    assert [(i.iid, i.state) for i in milestone.issues] == [
        (1, "closed"),
        (2, "closed"),
        (3, "closed"),
    ]
    subjects = git.git(spec.project_dir, "log", "--format=%s", "main..HEAD").splitlines()
    assert sorted(s.split(":")[0] for s in subjects if s.startswith("feat")) == [
        "feat(#1)",
        "feat(#2)",
        "feat(#3)",
    ]
    logged = [entry.id for entry in checkpoints.history(files)]
    assert len(logged) == len(set(logged)), "a resumed checkpoint is logged once"
    kept = [decision.checkpoint_id for decision in milestone.decisions]
    assert kept == logged, "killed at every checkpoint, each decision is on the tracker once"
    assert git.changed_files(spec.project_dir) == []
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q"], cwd=spec.project_dir, capture_output=True
    )
    assert tests.returncode == 0

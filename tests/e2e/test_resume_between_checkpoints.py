"""Resume in the phases that have no checkpoint: killed after their work, before their move.

The agent is stopped at the next checkpoint, then its persisted state is put back to
what it was when the earlier phase began, with that phase's side effect already done
(the branch created, the merge request created): exactly what a SIGKILL between the
side effect and the state write leaves behind.
"""

from __future__ import annotations

import os
import signal

import pytest

from agent.core.run import phases
from agent.tracker.file import FileTracker
from common.atomic import read_model, write_model
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.milestone import FileMilestone
from common.workspace import answer, git
from tests.e2e.agents import (
    demo_workspace,
    finish,
    log_text,
    next_pending,
    phase_reached,
    start_agent,
)

pytestmark = pytest.mark.slow


async def test_killed_after_creating_the_branch_resumes_without_a_second_branch() -> None:
    spec, files = demo_workspace(auto_accept=False)
    agent = start_agent(files)
    while (pending := await next_pending(files, agent)).type is not CheckpointType.ISSUE_SELECTION:
        no_enrichment = "" if pending.type is CheckpointType.ISSUE_ENRICHMENT else None
        answer.approve(files.root, no_enrichment, None)
    os.killpg(agent.pid, signal.SIGKILL)
    agent.wait()

    state = read_model(files.state, AgentState)
    assert state.history[-1].from_phase is Phase.CREATE_BRANCH
    rewound = state.model_copy(update={"phase": Phase.CREATE_BRANCH, "history": state.history[:-1]})
    write_model(files.state, rewound)
    git.git(spec.project_dir, "checkout", "--quiet", "main")  # the branch exists, HEAD is elsewhere

    agent = start_agent(files)
    await phase_reached(files, Phase.ISSUE_SELECTION)
    again = await next_pending(files, agent)
    assert again.id == pending.id, "the same issue_selection checkpoint is reached again"
    assert git.current_branch(spec.project_dir) == "feature/textkit-helpers"
    assert git.branches(spec.project_dir) == ["feature/textkit-helpers", "main"]
    os.killpg(agent.pid, signal.SIGKILL)


async def test_killed_after_creating_the_mr_resumes_without_a_second_mr() -> None:
    _spec, files = demo_workspace(auto_accept=False)
    agent = start_agent(files)
    while (await next_pending(files, agent)).type is not CheckpointType.MR_REVIEW:
        answer.approve(files.root, None, None)
    os.killpg(agent.pid, signal.SIGKILL)
    agent.wait()

    decided = answer.approve(files.root, None, None)  # the human approved; the agent died
    state = read_model(files.state, AgentState)
    assert state.mr_title is not None and state.mr_description is not None
    write_model(files.state, phases.advance(state, Phase.MR_CREATE, "merge request approved"))
    tracker = FileTracker(files.milestone)
    await tracker.create_merge_request(
        state.mr_title, state.mr_description, "feature/textkit-helpers", "main"
    )  # ... and the MR was created before the state was written

    agent = start_agent(files)
    assert finish(agent) == 0, log_text(files)
    assert read_model(files.state, AgentState).phase is Phase.DONE
    milestone = read_model(files.milestone, FileMilestone)
    assert milestone.merge_request is not None and milestone.merge_request.iid == 1
    assert decided.type is CheckpointType.MR_REVIEW

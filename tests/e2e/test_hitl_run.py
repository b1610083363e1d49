"""A whole demo run with a human answering every checkpoint, through the real SDK and CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from common.atomic import read_model
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import (
    CheckpointType,
    EnrichmentDecision,
    SelectionDecision,
    SpecToIssuesCheckpoint,
)
from common.schemas.exit_status import AgentExit
from common.schemas.milestone import FileMilestone
from common.workspace import answer, checkpoints, git
from tests.e2e.agents import demo_workspace, finish, log_text, next_pending, start_agent

pytestmark = pytest.mark.slow


async def test_human_answers_every_checkpoint_and_a_reject_leads_to_a_new_proposal() -> None:
    spec, files = demo_workspace(auto_accept=False)
    agent = start_agent(files)
    seen: list[CheckpointType] = []
    try:
        first = await next_pending(files, agent)
        assert first.type is CheckpointType.PROJECT_VERIFICATION
        answer.approve(files.root, None, None)

        proposal = await next_pending(files, agent)
        assert isinstance(proposal, SpecToIssuesCheckpoint)
        assert proposal.context.attempt == 1
        answer.reject(files.root, "split nothing, but say why word_count is special")

        second = await next_pending(files, agent)
        assert isinstance(second, SpecToIssuesCheckpoint)
        assert second.id != proposal.id
        assert second.context.attempt == 2
        assert second.context.feedback == "split nothing, but say why word_count is special"
        answer.approve(files.root, None, None)

        while agent.poll() is None:
            try:
                pending = await next_pending(files, agent)
            except AssertionError:
                break
            seen.append(pending.type)
            if pending.type is CheckpointType.ISSUE_ENRICHMENT:
                answer.approve(files.root, "", None)  # a changed selection: enrich nothing
            elif pending.type is CheckpointType.ISSUE_SELECTION and len(seen) == 2:
                answer.approve(files.root, "3", None)  # not the recommended #1
            else:
                answer.approve(files.root, None, None)
        assert finish(agent) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            agent.kill()

    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE
    assert read_model(files.exit_status, AgentExit).outcome == "done"
    history = checkpoints.history(files)
    kinds = {entry.type for entry in history}
    assert kinds == set(CheckpointType) - {
        CheckpointType.REGRESSION_APPROVAL,
        CheckpointType.BUDGET_REACHED,
        CheckpointType.ENRICHMENT_SCOPE,  # the demo's enrichment keeps its issue's scope
        CheckpointType.MERGE_CONFLICT,  # one issue at a time: no branch to merge
    }
    enrichment = next(e for e in history if e.type is CheckpointType.ISSUE_ENRICHMENT)
    assert isinstance(enrichment.decision, EnrichmentDecision)
    assert enrichment.decision.selected == []
    assert all(e.decision is not None and e.decision.decided_by.startswith("cli:") for e in history)
    selections = [e for e in history if e.type is CheckpointType.ISSUE_SELECTION]
    assert isinstance(selections[0].decision, SelectionDecision)
    assert selections[0].decision.issue_iid == 3

    milestone = read_model(files.milestone, FileMilestone)
    assert [i.state for i in milestone.issues] == ["closed"] * 3
    assert not any("enriched" in i.labels for i in milestone.issues)
    assert milestone.merge_request is not None
    # Each decision in the milestone file once, in the log's order, the person's reason kept.
    assert [d.checkpoint_id for d in milestone.decisions] == [e.id for e in history]
    assert all(d.decided_by.startswith("cli:") and d.rule is None for d in milestone.decisions)
    rejected = next(d for d in milestone.decisions if not d.approved)
    assert (rejected.choice, rejected.reason) == (
        "reject",
        "split nothing, but say why word_count is special",
    )
    closures = [d for d in milestone.decisions if d.checkpoint_type == "issue_closure"]
    assert sorted(d.issue or 0 for d in closures) == [1, 2, 3]
    described = milestone.merge_request.description
    assert "## Traceability (from the harness's records)" in described
    assert "| issue_selection | — | approve: issue #3 | cli:" in described
    subjects = git.git(spec.project_dir, "log", "--format=%s", "main..HEAD").splitlines()
    assert subjects[-1].startswith("feat(#3): ")  # the chosen issue was implemented first
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q"], cwd=spec.project_dir, capture_output=True
    )
    assert tests.returncode == 0

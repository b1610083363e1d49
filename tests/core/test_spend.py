"""Session figures add up in ``AgentState.spend`` and reach clients through ``AgentInfo``."""

from __future__ import annotations

import os
from pathlib import Path

from agent.core.session.result import SessionResult
from agent.daemon.agent_view import build_agent_info
from common.atomic import read_model, write_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import CheckpointFile
from common.schemas.daemon_state import AgentRecord, AgentStatus
from common.schemas.issues import TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from tests.core.checkpoint_samples import project_verification
from tests.core.test_model_probe import session_run


def figures(cost: float | None, tokens_in: int = 1000) -> SessionResult:
    return SessionResult(
        turns=3,
        cost_usd=cost,
        input_tokens=tokens_in,
        output_tokens=50,
        duration_ms=10,
        denials=0,
        touched=set(),
        cache_read_tokens=600,
        cache_creation_tokens=100,
    )


async def test_every_finished_session_adds_its_tokens_and_cost_to_the_saved_state(
    tmp_path: Path,
) -> None:
    answers = iter([figures(0.25), figures(None, tokens_in=500)])

    async def runner(*_: object) -> SessionResult:
        return next(answers)

    run = session_run(tmp_path, runner, [])
    (tmp_path / "ws").mkdir(parents=True)
    for _ in range(2):
        await run.session(
            "initializer", "initializer", spec="", section_list="", target_branch="", feedback=""
        )
    saved = read_model(run.files.state, AgentState).spend
    assert saved == Spend(
        sessions=2,
        tokens_in=1500,
        tokens_out=100,
        cache_read=1200,
        cache_creation=200,
        cost_usd=0.25,
        session_s=0.02,
    )


def test_the_agent_view_carries_spend_progress_and_the_waiting_phase(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    files = WorkspaceFiles(workspace)
    workspace.mkdir()
    spec = AgentSpec(spec_file=tmp_path / "s.md", project_dir=tmp_path, target_branch="main")
    record = AgentRecord(
        name="agent_1", spec=spec, workspace=workspace, log_file=tmp_path / "a.log", pid=os.getpid()
    )
    checkpoint = project_verification()
    write_model(files.checkpoint, CheckpointFile(checkpoint))
    info = build_agent_info(record, alive=True)
    assert info.phase is Phase.PROJECT_VERIFICATION  # no state file yet: not "starting"
    assert info.status is AgentStatus.WAITING
    assert info.pending_since == checkpoint.created_at

    spend = Spend(sessions=1, tokens_in=10, tokens_out=2, cost_usd=0.5)
    write_model(files.state, AgentState(phase=Phase.CODING, spend=spend))
    issues = [
        TrackedIssue(iid=1, title="a", description="", state="closed"),
        TrackedIssue(iid=2, title="b", description=""),
        TrackedIssue(iid=3, title="c", description=""),
    ]
    write_model(files.milestone, FileMilestone(title="m", issues=issues))
    info = build_agent_info(record, alive=True)
    assert (info.issues_closed, info.issues_total) == (1, 3)
    assert info.spend == spend
    assert info.phase is Phase.CODING

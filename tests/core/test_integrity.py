"""A changed .git/config or a moved branch stops the run at a checkpoint that shows it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.core.run import integrity
from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Run
from common.schemas.checkpoint import ProjectVerificationCheckpoint
from common.workspace import answer, checkpoints
from tests.core.runs import logged, make_run, sh_git


@pytest.fixture
def run(tmp_path: Path) -> Run:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    sh_git(project, "checkout", "-q", "-b", run.info.feature_branch)
    sh_git(project, "commit", "-q", "--allow-empty", "-m", "feat(#1): one")
    sha = sh_git(project, "rev-parse", "HEAD")
    recorded = integrity.Record(
        integrity.config_text(project), integrity.head_of(project, run.spec.target_branch), None
    )
    with run.store.editing() as state:
        integrity.record(state, recorded)
        state.harness_commits = [sha]
    return run


async def pending_guard(run: Run, decide: bool) -> None:
    guarding = asyncio.create_task(integrity.guard(run, "before issue_closure"))
    for _ in range(200):
        if checkpoints.pending(run.files) is not None:
            break
        await asyncio.sleep(0.05)
    found = checkpoints.pending(run.files)
    assert isinstance(found, ProjectVerificationCheckpoint)
    if decide:
        await asyncio.to_thread(answer.approve, run.files.root, None, None)
    else:
        await asyncio.to_thread(answer.reject, run.files.root, "investigate")
    await asyncio.wait_for(guarding, 10)


async def test_nothing_changed_means_no_checkpoint(run: Run) -> None:
    await integrity.guard(run, "after session x")
    assert checkpoints.current(run.files) is None


async def test_a_planted_hook_path_and_push_rewrite_show_as_a_config_diff(run: Run) -> None:
    project = run.spec.project_dir
    sh_git(project, "config", "core.hooksPath", "/tmp/evil-hooks")
    sh_git(project, "config", "url.http://127.0.0.1:9/.pushInsteadOf", "https://gitlab.example/")
    found = await integrity.problems(run)
    assert found[0] == ".git/config changed during the session:"
    assert any("+\thooksPath = /tmp/evil-hooks" in line for line in found)
    assert any("pushInsteadOf" in line for line in found)


async def test_a_removed_harness_commit_and_a_moved_target_are_named(run: Run) -> None:
    project = run.spec.project_dir
    made = run.state.harness_commits[0]
    sh_git(project, "reset", "-q", "--hard", "HEAD~1")
    sh_git(project, "update-ref", "refs/heads/main", made)
    found = await integrity.problems(run)
    assert found == [
        f"commit {made[:12]} made by the harness is no longer on {run.info.feature_branch}",
        f"target branch main moved from {run.state.target_head[:12]} to {made[:12]}",  # type: ignore[index]
    ]


async def test_a_change_stops_at_a_checkpoint_and_approval_records_the_new_state(
    run: Run,
) -> None:
    sh_git(run.spec.project_dir, "config", "core.fsmonitor", "/tmp/evil")
    await pending_guard(run, decide=True)
    assert run.state.git_config is not None and "fsmonitor" in run.state.git_config
    assert await integrity.problems(run) == []
    assert "integrity check before issue_closure" in logged(run)


async def test_a_rejected_change_pauses_the_run(run: Run) -> None:
    sh_git(run.spec.project_dir, "update-ref", "refs/heads/main", run.state.harness_commits[0])
    with pytest.raises(StopRun, match="paused at project_verification"):
        await pending_guard(run, decide=False)

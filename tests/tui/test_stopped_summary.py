"""A stopped agent's summary: who stopped it, and no raw git usage error.

An agent stopped at project_verification has no feature branch yet; its summary
showed git's "ambiguous argument … Use '--' to separate paths" text, and a person's
``harness stop`` read as "stopped by signal".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from agent.daemon.agent_view import STOPPED_BY_USER, build_agent_info
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.daemon_state import AgentRecord, AgentStatus
from common.schemas.exit_status import AgentExit
from common.schemas.spec import AgentSpec
from tui.services.run_summary import _branch_lines


def make_repo(root: Path) -> Path:
    root.mkdir()
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "t@example.invalid"],
        ["config", "user.name", "t"],
        ["commit", "-q", "--allow-empty", "-m", "init"],
    ):
        subprocess.run(["git", *args], cwd=root, check=True)
    return root


def test_a_branch_not_created_yet_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")

    [line] = _branch_lines(repo, "feature/not-yet", "main")

    assert line == "branch feature/not-yet: not created yet"


def test_a_feature_branch_lists_its_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "proj")
    subprocess.run(["git", "checkout", "-q", "-b", "feature/x"], cwd=repo, check=True)
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "feat: one"], cwd=repo, check=True
    )

    lines = _branch_lines(repo, "feature/x", "main")

    assert lines[0] == "branch feature/x: 1 commit(s) on main"
    assert lines[1].endswith(" feat: one")


def _stopped(tmp_path: Path, *, by_user: bool) -> str:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    spec = AgentSpec(spec_file=tmp_path / "s.md", project_dir=tmp_path, target_branch="main")
    record = AgentRecord(
        name="agent_1",
        spec=spec,
        workspace=workspace,
        log_file=tmp_path / "a.log",
        pid=424242,
        stopped_by_user=by_user,
    )
    exited = AgentExit(pid=424242, outcome="stopped", exit_code=0, reason="stopped by signal")
    write_model(WorkspaceFiles(workspace).exit_status, exited)
    info = build_agent_info(record, alive=False)
    assert info.status is AgentStatus.STOPPED
    return info.reason


def test_a_person_s_stop_reads_as_one(tmp_path: Path) -> None:
    assert _stopped(tmp_path, by_user=True) == STOPPED_BY_USER


def test_a_signal_from_elsewhere_keeps_the_agent_s_words(tmp_path: Path) -> None:
    assert _stopped(tmp_path, by_user=False) == "stopped by signal"

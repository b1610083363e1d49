"""``python -m tui.main``: everything that fails before the UI opens is one line and exit 1."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from common.schemas.spec import AgentSpec
from tests.tui.conftest import REPO_ROOT
from tui.services.pending import LIVE


def run_tui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tui.main", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


def test_malformed_json_is_one_line() -> None:
    line = one_error_line(run_tui("--specs", "[{"))
    assert "--specs is not valid JSON" in line


def test_a_spec_missing_a_field_is_one_line() -> None:
    line = one_error_line(run_tui("--specs", '[{"spec_file": "/x.md"}]'))
    assert "--specs[0].project_dir: field required" in line


def test_a_spec_pointing_at_nothing_is_one_line(demo_spec: AgentSpec) -> None:
    broken = demo_spec.model_copy(update={"target_branch": "nope"})
    line = one_error_line(run_tui("--specs", f"[{broken.model_dump_json()}]"))
    assert "target_branch 'nope' does not exist" in line


def test_without_a_daemon_and_not_allowed_to_start_one_it_says_what_to_do() -> None:
    line = one_error_line(run_tui("--no-daemon-start"))
    assert "start it with `harness daemon start`" in line


@pytest.fixture
async def idle_daemon(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """A daemon whose agents only sleep: enough to be refused a second agent on a workspace."""
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    sleeper = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(120)'"
    await lifecycle.start_daemon(daemon_args=["--agent-command", sleeper])
    try:
        yield
    finally:
        async with DaemonClient.connect() as client:
            for info in await client.list_agents():
                if info.status in LIVE:
                    await client.stop(info.name)
        await lifecycle.stop_daemon()


@pytest.mark.slow
async def test_a_spec_the_daemon_refuses_is_one_line(
    idle_daemon: None, demo_spec: AgentSpec
) -> None:
    twice = json.dumps([json.loads(demo_spec.model_dump_json())] * 2)
    line = one_error_line(run_tui("--specs", twice))
    assert "textkit-helpers.md: agent_1 is already running on workspace" in line
    assert "already started: agent_1" in line

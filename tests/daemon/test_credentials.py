"""Claude credentials come with each start request and go to that agent's pipe alone.

The daemon never lends an agent the credentials of its own environment, and no
agent's environment carries any, nor the daemon's Claude settings.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.server import DaemonServer
from common.credentials import API_KEY, BASE_URL, MODEL
from common.errors import DaemonError
from common.paths import daemon_log_path, daemon_state_path
from tests.procfs import environ_of

from .conftest import REPO_ROOT, MakeSpec

KEY = "sk-ant-test-0123456789abcdef"


async def test_a_claude_model_without_credentials_is_refused_whatever_the_daemon_has(
    client: DaemonClient, make_spec: MakeSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(API_KEY, KEY)  # the daemon's own environment: not lent to agents
    spec = make_spec("idle").model_copy(update={"model": "claude-test"})

    with pytest.raises(DaemonError, match=r"^idle\.md: no Claude credentials: set "):
        await client.start(spec)
    assert await client.list_agents() == []


async def test_credentials_reach_the_agent_through_its_pipe_and_no_environ(
    client: DaemonClient,
    make_spec: MakeSpec,
    harness_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(BASE_URL, "http://daemon-own:1")  # must not reach the agent either
    spec = make_spec("idle").model_copy(update={"model": "claude-test"})
    credentials = {API_KEY: KEY, BASE_URL: "http://127.0.0.1:9", MODEL: "claude-test"}

    info = await client.start(spec, credentials)
    assert info.pid is not None
    received = await _received(info.workspace)
    assert received == {
        name: hashlib.sha256(value.encode()).hexdigest() for name, value in credentials.items()
    }
    environ = environ_of(info.pid)
    assert KEY.encode() not in environ
    assert re.search(rb"(^|\0)(ANTHROPIC_|CLAUDE_MODEL)", environ) is None
    for path in (daemon_state_path(harness_home), daemon_log_path(harness_home)):
        if path.exists():
            assert KEY not in path.read_text()


async def _received(workspace: Path) -> dict[str, str]:
    """What the fake agent read from its pipe (it writes it first thing)."""
    path = workspace / "received_secrets.json"
    for _ in range(150):
        if path.exists():
            data: dict[str, str] = json.loads(path.read_text())
            return data
        await asyncio.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


async def test_harness_run_takes_the_credentials_of_dot_env_as_start_sh_does(
    daemon: DaemonServer, make_spec: MakeSpec, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``cp .env.example .env`` with a key in it: ``harness run`` found none before."""
    env_file = tmp_path / ".env"
    env_file.write_text(
        (REPO_ROOT / ".env.example")
        .read_text()
        .replace("ANTHROPIC_API_KEY=", f"ANTHROPIC_API_KEY={KEY}")
        + f"{BASE_URL}=http://127.0.0.1:9 # a trailing comment\n"
    )
    monkeypatch.setenv("HARNESS_ENV_FILE", str(env_file))
    monkeypatch.setenv(BASE_URL, "http://from-the-shell:1")  # the shell's wins over the file
    spec = make_spec("idle").model_copy(update={"model": "claude-test"})
    specs = tmp_path / "specs.json"
    specs.write_text(json.dumps([json.loads(spec.model_dump_json())]))

    started = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "agent.control", "run", "--specs", f"@{specs}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert started.returncode == 0, started.stderr
    async with DaemonClient.connect() as client:
        [info] = await client.list_agents()
    received = await _received(info.workspace)
    assert received == {
        API_KEY: hashlib.sha256(KEY.encode()).hexdigest(),
        BASE_URL: hashlib.sha256(b"http://from-the-shell:1").hexdigest(),
    }

"""A token given to the daemon reaches its agents, yet no ``/proc/PID/environ`` of theirs shows it.

``/proc/PID/environ`` is what the model's Bash tool could read of the daemon and
of every agent process tree: the token must be in none of them, whether the
daemon was started by ``start_daemon`` or by hand with the token in its environment.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Literal

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import start_daemon, stop_daemon
from common.paths import daemon_log_path
from common.schemas.daemon_state import DaemonStatusFile
from common.secrets import SECRETS_FD_OPTION
from tests.procfs import cmdline_of, environ_of, open_pipes, process_tree

from .conftest import REPO_ROOT, MakeSpec
from .helpers import WAIT, start_ready, until_answering
from .test_process_daemon import DAEMON_ARGS

TOKEN_VARIABLE = "GITLAB_PERSONAL_ACCESS_TOKEN"
Launch = Literal["start_daemon", "by hand"]


@pytest.fixture
def token() -> str:
    return f"glpat-{secrets.token_hex(16)}"


@pytest.fixture(params=["start_daemon", "by hand"])
async def daemon_with_token(
    request: pytest.FixtureRequest,
    harness_home: Path,
    token: str,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[DaemonStatusFile]:
    """A daemon process whose launcher had the token in its environment."""
    launch: Launch = request.param
    if launch == "start_daemon":
        with monkeypatch.context() as patch:
            patch.setenv(TOKEN_VARIABLE, token)
            status = await start_daemon(daemon_args=DAEMON_ARGS)
    else:  # as a user would from a shell where the token is exported
        with daemon_log_path(harness_home).open("ab") as log:
            daemon = subprocess.Popen(
                [sys.executable, "-m", "agent.daemon", *DAEMON_ARGS],
                cwd=REPO_ROOT,
                env={**os.environ, TOKEN_VARIABLE: token},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        status = await until_answering(harness_home, daemon)
        assert status.pid == daemon.pid  # the re-exec kept the pid
        assert cmdline_of(daemon.pid)[-2] == SECRETS_FD_OPTION
        assert open_pipes(daemon.pid) == []  # the secrets pipe was read and closed
    yield status
    with contextlib.suppress(ProcessLookupError):
        if not await stop_daemon():
            os.kill(status.pid, signal.SIGKILL)
    if launch == "by hand":
        daemon.wait(WAIT)


async def test_the_token_reaches_the_agent_through_a_pipe_and_no_environ_shows_it(
    daemon_with_token: DaemonStatusFile, harness_home: Path, make_spec: MakeSpec, token: str
) -> None:
    async with DaemonClient.connect() as client:
        agent = await start_ready(client, make_spec("family"))  # the agent and a grandchild
    assert agent.pid is not None
    sleeper = int((agent.workspace / "grandchild.pid").read_text())

    tree = process_tree(daemon_with_token.pid)

    assert {agent.pid, sleeper} <= set(tree)
    for pid in tree:
        assert token.encode() not in environ_of(pid), f"{pid}: {cmdline_of(pid)}"
        assert TOKEN_VARIABLE.encode() not in environ_of(pid)
    received = json.loads((agent.workspace / "received_secrets.json").read_text())
    assert received == {TOKEN_VARIABLE: hashlib.sha256(token.encode()).hexdigest()}
    assert cmdline_of(agent.pid)[-2] == SECRETS_FD_OPTION
    assert open_pipes(agent.pid) == []  # read and closed
    assert open_pipes(daemon_with_token.pid) == []  # the daemon kept no end of it
    for log in (daemon_log_path(harness_home), agent.log_file):
        assert token not in log.read_text()


async def test_without_a_token_the_agent_command_is_unchanged(
    harness_home: Path, make_spec: MakeSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)
    status = await start_daemon(daemon_args=DAEMON_ARGS)
    try:
        async with DaemonClient.connect() as client:
            agent = await start_ready(client, make_spec("idle"))
        assert agent.pid is not None
        assert SECRETS_FD_OPTION not in cmdline_of(status.pid)
        assert SECRETS_FD_OPTION not in cmdline_of(agent.pid)
        assert not (agent.workspace / "received_secrets.json").exists()
    finally:
        await stop_daemon()

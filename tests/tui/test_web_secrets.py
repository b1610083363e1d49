"""``harness web`` hands over to ``python -m tui.web`` without showing a secret in
``/proc/PID/environ``: the token travels through a pipe, as it does into every front end."""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import signal
import sys

from tests.procfs import cmdline_of, environ_of
from tests.tui.conftest import REPO_ROOT

WAIT = 30.0


async def test_the_web_server_started_by_harness_web_shows_no_token_in_its_environ() -> None:
    token = f"web-secret-{secrets.token_hex(8)}"
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent.control",
        "web",
        "--port",
        "0",
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT), "GITLAB_TOKEN": token},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), WAIT)
        assert re.search(rb"http://localhost:\d+/\?token=", line), line

        argv = cmdline_of(process.pid)  # the same process, now the TUI's web server
        assert argv[1:4] == ["-P", "-m", "tui.web"], argv
        assert "--secrets-fd" in argv, "the token came through a pipe"
        assert token.encode() not in environ_of(process.pid)
        assert b"GITLAB_TOKEN" not in environ_of(process.pid)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()

"""``harness web`` shows the whole 372-column line too, and refuses the pager in one line.

The same stand-in agent as the tmux test (a closure over a real commit adding
``__version__ = "0.2.0"``, 300 spaces, then a call); the TUI in headless Chromium: the
flag and the call after the blanks are drawn, ``p`` says there is no terminal of the
person's here (the TUI runs in a browser), and the dialog stays usable.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from tests.tui.browser import WAIT, Browser
from tests.tui.conftest import REPO_ROOT
from tests.tui.test_tmux_diff import AGENT, project_with_the_padded_line
from tests.tui.test_web import chromium
from tui.services.diff_pager import NO_TERMINAL
from tui.services.pending import LIVE

__all__ = ["chromium"]

pytestmark = pytest.mark.slow


@pytest.fixture
async def closure_web(scratch: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[str]:
    """A daemon whose agent waits at the padded closure, and ``harness web``'s URL."""
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    spec = project_with_the_padded_line(scratch)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(AGENT))} {{workspace}}"
    await lifecycle.start_daemon(daemon_args=["--agent-command", command])
    web = None
    try:
        async with DaemonClient.connect() as client:
            await client.start(spec)
        web = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "agent.control.main", "web", "--port", "0",
            cwd=REPO_ROOT, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )  # fmt: skip
        assert web.stdout is not None
        line = await asyncio.wait_for(web.stdout.readline(), WAIT)
        found = re.search(rb"(http://\S+)", line)
        assert found is not None, line
        yield found.group(1).decode()
    finally:
        if web is not None:
            web.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(web.wait(), 10)
            except TimeoutError:
                web.kill()
                await web.wait()
        async with DaemonClient.connect() as client:
            for info in await client.list_agents():
                if info.status in LIVE:
                    await client.stop(info.name)
        await lifecycle.stop_daemon()


async def test_the_browser_shows_the_whole_line_and_refuses_the_pager(
    chromium: str, closure_web: str
) -> None:
    async with Browser(chromium) as browser:
        await browser.open(closure_web)
        seen = await browser.wait_for_text("waits", "the waiting agent")
        await browser.type("c")
        seen = await browser.wait_for_text("HITL CHECKPOINT", "the dialog", after=seen)
        seen = await browser.wait_for_text("1 line of the diff to read whole", "the ⚠", after=seen)
        await browser.type("]")
        seen = await browser.wait_for_text("·×300", "the blanks' mark", after=seen)
        seen = await browser.wait_for_text('__import__("os")', "the call after them", after=seen)
        await browser.type("p")
        await browser.wait_for_text(NO_TERMINAL[:30], "the refusal", after=seen)

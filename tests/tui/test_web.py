"""``harness web`` in a real headless browser: the token, the agent list, a checkpoint answered.

Chromium is installed with apt when it is missing (as on a fresh CI machine); the
test is skipped, saying so, only when that is not possible here.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator

import aiohttp
import pytest

from agent.daemon.client import DaemonClient
from common.paths import WorkspaceFiles
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.spec import AgentSpec
from common.workspace import checkpoints
from tests.tui.browser import WAIT, Browser, find_chromium
from tests.tui.conftest import REPO_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def chromium() -> str:
    found = find_chromium()
    if found is None:
        pytest.skip("chromium is not installed and `apt-get install chromium` is not possible here")
    return found


@pytest.fixture
async def web_url(daemon: None) -> AsyncIterator[str]:
    """``harness web --port 0`` running; the URL it printed (with the token)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent.control.main",
        "web",
        "--port",
        "0",
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    try:
        line = await asyncio.wait_for(process.stdout.readline(), WAIT)
        found = re.search(rb"(http://\S+)", line)
        assert found is not None, line
        yield found.group(1).decode()
    finally:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), 10)
        except TimeoutError:
            process.kill()
            await process.wait()


async def test_a_checkpoint_is_answered_from_a_browser(
    chromium: str, web_url: str, demo_spec: AgentSpec
) -> None:
    async with DaemonClient.connect() as client:
        started = await client.start(demo_spec)
    files = WorkspaceFiles(started.workspace)
    base = web_url.split("?", 1)[0]
    async with aiohttp.ClientSession() as session, session.get(base) as reply:
        assert reply.status == 403  # no token, no TUI
    async with Browser(chromium) as browser:
        await browser.open(web_url)
        seen = await browser.wait_for_text(started.name, "the agent list")
        seen = await browser.wait_for_text("waits", "the waiting agent", after=seen)
        await browser.type("c")
        await browser.wait_for_text("HITL CHECKPOINT", "the dialog", after=seen)
        await browser.type("y")
        for _ in range(int(WAIT / 0.2)):
            history = checkpoints.history(files)
            if history:
                break
            await asyncio.sleep(0.2)
    first = checkpoints.history(files)[0]
    assert first.type is CheckpointType.PROJECT_VERIFICATION
    assert first.decision is not None and first.decision.approved
    assert first.decision.decided_by.startswith("tui:")

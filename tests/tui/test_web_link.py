"""``harness web`` records its link (never its token) while it serves, for the agents'
webhook messages, and removes it when it stops. In process: the real server on port 0."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from common import web_link
from tui import web


async def test_the_served_link_is_recorded_without_the_token_and_removed_at_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_HOME", str(tmp_path))
    path = web_link.link_file(tmp_path)
    serving = asyncio.create_task(web.serve("127.0.0.1", 0))
    for _ in range(200):
        if web_link.served(path) is not None or serving.done():
            break
        await asyncio.sleep(0.05)
    link = web_link.served(path)
    printed = capsys.readouterr().out
    token = printed.split("?token=", 1)[1].split()[0]
    assert link is not None and link.startswith("http://127.0.0.1:") and link.endswith("/")
    assert token not in path.read_text() and "token" not in link
    assert link.rstrip("/") in printed  # the port the server really listens on
    serving.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await serving
    assert not path.exists()

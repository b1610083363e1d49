"""The daemon link against a real daemon: it notices the daemon stopping and starts it again."""

from __future__ import annotations

import asyncio

import pytest

from agent.daemon import lifecycle
from common.schemas.spec import AgentSpec
from tui.services.link import Connection, DaemonLink, LinkFrame

pytestmark = pytest.mark.slow


async def test_a_stopped_daemon_is_started_again_and_the_agents_come_back(
    daemon: None, demo_spec: AgentSpec
) -> None:
    link = DaemonLink(autostart=True)
    started = await link.start(demo_spec)
    frames = link.frames()

    async def next_frame() -> LinkFrame:
        return await asyncio.wait_for(anext(frames), 30)

    assert await next_frame() == Connection(True, f"daemon pid {lifecycle.daemon_running().pid}")  # type: ignore[union-attr]
    snapshot = await next_frame()
    assert isinstance(snapshot, list) and [i.name for i in snapshot] == [started.name]

    await lifecycle.stop_daemon()
    lost = await next_frame()
    assert isinstance(lost, Connection) and not lost.connected
    assert "starting it again" in lost.detail
    while not isinstance(frame := await next_frame(), list):
        assert not isinstance(frame, Connection) or frame.connected
    assert [info.name for info in frame] == [started.name]  # the registry survived
    await frames.aclose()


async def test_without_autostart_it_says_what_to_do(daemon: None) -> None:
    link = DaemonLink(autostart=False)
    frames = link.frames()
    assert (await anext(frames)).connected  # type: ignore[union-attr]
    assert await anext(frames) == []
    await lifecycle.stop_daemon()
    lost = await asyncio.wait_for(anext(frames), 30)
    assert isinstance(lost, Connection) and "harness daemon start" in lost.detail
    with pytest.raises(StopAsyncIteration):
        await anext(frames)
    await lifecycle.start_daemon()  # for the fixture's teardown

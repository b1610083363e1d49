"""The daemon link against a real daemon: it notices the daemon stopping and starts it again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent.daemon import lifecycle
from common.paths import socket_path
from common.protocol_wire import PROTOCOL_VERSION
from common.schemas.protocol import Hello
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


async def test_a_daemon_of_another_protocol_is_named_not_restarted(isolated_home: Path) -> None:
    """A daemon left running from an older harness answers with another protocol version:
    the link says what to do and ends (starting a daemon would find this one running)."""
    hello = Hello(protocol_version=PROTOCOL_VERSION + 1, daemon_pid=4242)

    async def greet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(hello.model_dump_json().encode() + b"\n")
        await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(greet, path=str(socket_path(isolated_home)))
    try:
        frames = DaemonLink(autostart=True).frames()
        said = await asyncio.wait_for(anext(frames), 30)
        assert isinstance(said, Connection) and not said.connected
        assert f"speaks protocol {PROTOCOL_VERSION + 1}" in said.detail
        assert "harness daemon stop" in said.detail
        with pytest.raises(StopAsyncIteration):
            await anext(frames)
    finally:
        server.close()
        await server.wait_closed()
    assert lifecycle.daemon_running() is None

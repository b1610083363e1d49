"""The daemon's folder and files: private modes, one daemon, stale leftovers replaced."""

from __future__ import annotations

import os
import socket
import stat
import tempfile
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running
from agent.daemon.server import DaemonServer
from common.atomic import read_model, write_bytes_atomic, write_model
from common.errors import DaemonError, StateFileError
from common.paths import MAX_SOCKET_PATH, daemon_state_path, daemon_status_path, socket_path
from common.protocol_wire import PROTOCOL_VERSION
from common.schemas.daemon_state import DaemonState, DaemonStatusFile

from .conftest import make_supervisor


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def set_mode(path: Path, bits: int) -> None:
    path.chmod(bits)


async def start_daemon_in_process(home: Path) -> DaemonServer:
    server = DaemonServer(make_supervisor(home), home)
    await server.start()
    return server


async def test_the_home_folder_is_created_private(
    harness_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = harness_home / "fresh"
    monkeypatch.setenv("HARNESS_HOME", str(home))

    server = await start_daemon_in_process(home)
    try:
        assert mode(home) == 0o700
        assert stat.S_ISSOCK(socket_path(home).stat().st_mode)
        assert mode(socket_path(home)) == 0o600
    finally:
        await server.close()


async def test_an_open_home_folder_is_tightened(harness_home: Path) -> None:
    set_mode(harness_home, 0o755)
    assert mode(harness_home) == 0o755

    server = await start_daemon_in_process(harness_home)
    try:
        assert mode(harness_home) == 0o700
    finally:
        await server.close()


async def test_the_status_file_is_written_at_start_and_removed_at_stop(
    harness_home: Path,
) -> None:
    server = await start_daemon_in_process(harness_home)
    status = read_model(daemon_status_path(harness_home), DaemonStatusFile)
    assert (status.pid, status.socket, status.protocol_version) == (
        os.getpid(),
        socket_path(harness_home),
        PROTOCOL_VERSION,
    )
    assert daemon_running() == status

    await server.close()

    assert not daemon_status_path(harness_home).exists()
    assert not socket_path(harness_home).exists()
    assert daemon_running() is None


async def test_a_too_long_socket_path_is_refused_naming_harness_home(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long_home = Path(tempfile.gettempdir()) / ("h" * MAX_SOCKET_PATH)
    monkeypatch.setenv("HARNESS_HOME", str(long_home))

    with pytest.raises(DaemonError, match="HARNESS_HOME") as refused:
        DaemonServer(make_supervisor(long_home), long_home)
    assert str(socket_path(long_home)) in str(refused.value)
    with pytest.raises(DaemonError, match="HARNESS_HOME"):
        async with DaemonClient.connect():
            pass


async def test_a_second_daemon_is_refused_while_one_runs(harness_home: Path) -> None:
    server = await start_daemon_in_process(harness_home)
    try:
        second = DaemonServer(make_supervisor(harness_home), harness_home)
        with pytest.raises(DaemonError) as refused:
            await second.start()
        sock = socket_path(harness_home)
        assert str(refused.value) == f"daemon already running (pid {os.getpid()}, socket {sock})"
        async with DaemonClient.connect() as client:  # the first one still answers
            assert await client.list_agents() == []
    finally:
        await server.close()


async def test_a_stale_socket_and_status_file_are_replaced(harness_home: Path) -> None:
    sock = socket_path(harness_home)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(str(sock))  # a socket file nobody listens on any more
    write_model(daemon_status_path(harness_home), DaemonStatusFile(pid=2**22 + 1, socket=sock))
    assert daemon_running() is None

    server = await start_daemon_in_process(harness_home)
    try:
        async with DaemonClient.connect() as client:
            assert client.hello.daemon_pid == os.getpid()
    finally:
        await server.close()


async def test_a_corrupted_registry_is_refused_not_reset(harness_home: Path) -> None:
    registry = daemon_state_path(harness_home)
    write_bytes_atomic(registry, b"{broken")

    with pytest.raises(StateFileError, match=r"daemon_state\.json: not valid JSON"):
        await start_daemon_in_process(harness_home)

    assert registry.read_bytes() == b"{broken"
    assert not socket_path(harness_home).exists()
    write_model(registry, DaemonState())
    server = await start_daemon_in_process(harness_home)  # the lock was released
    await server.close()


async def test_a_client_without_daemon_says_how_to_start_it(harness_home: Path) -> None:
    expected = (
        f"daemon is not running (socket {socket_path(harness_home)}); "
        "start it with `harness daemon start`"
    )
    with pytest.raises(DaemonError) as refused:
        async with DaemonClient.connect():
            pass
    assert str(refused.value) == expected

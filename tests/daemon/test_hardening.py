"""The daemon against other local users and hostile input.

Another uid cannot connect: the socket's folder is 0700, and should that be
loosened, the daemon itself checks the peer's uid (``SO_PEERCRED``). Input that
used to drop the connection (deeply nested JSON) is answered with an error.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient, _read_hello
from agent.daemon.home import private_log
from agent.daemon.lifecycle import start_daemon, stop_daemon
from agent.daemon.peer import peer_uid
from agent.daemon.server import DaemonServer
from common.errors import DaemonError
from common.paths import daemon_log_path
from common.schemas.protocol import ErrorReply, Reply, ReplyAdapter

from .test_process_daemon import DAEMON_ARGS

OTHER_UID = 65534  # nobody
SYSTEM_PYTHON = Path("/usr/bin/python3")
_CONNECT = """
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except OSError as e:
    print("connect failed:", e.strerror)
    sys.exit(0)
s.settimeout(5)
data = b""
while not data.endswith(b"\\n"):
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.decode().strip() or "closed")
print("eof" if s.recv(4096) == b"" else "still open")
"""
as_other_user = pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("setpriv") is None or not SYSTEM_PYTHON.exists(),
    reason="needs root, setpriv and a system python3 to act as another user",
)


async def _connect_as(uid: int, socket_path: Path) -> list[str]:
    proc = await asyncio.create_subprocess_exec(
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        str(SYSTEM_PYTHON),
        "-I",
        "-c",
        _CONNECT,
        str(socket_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd="/",
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 20)
    return out.decode().strip().splitlines()


@as_other_user
async def test_another_user_cannot_reach_the_socket_in_its_private_folder(
    daemon: DaemonServer,
) -> None:
    lines = await _connect_as(OTHER_UID, daemon.socket_path)
    assert lines == ["connect failed: Permission denied"]


@as_other_user
async def test_another_user_is_refused_by_the_daemon_itself(
    daemon: DaemonServer, harness_home: Path
) -> None:
    # Loosen every mode on the way, as a careless chmod would: the uid check still holds.
    for folder in (harness_home.parent, harness_home):
        folder.chmod(0o755)
    daemon.socket_path.chmod(0o777)

    lines = await _connect_as(OTHER_UID, daemon.socket_path)

    refused = ReplyAdapter.validate_json(lines[0])
    assert refused.type == "error" and "serves uid 0 only, not uid 65534" in refused.message
    assert lines[1] == "eof"
    async with DaemonClient.connect() as client:  # its owner still gets in
        assert await client.list_agents() == []


def test_the_peer_uid_is_the_kernel_s_word() -> None:
    import socket

    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_uid(left) == os.getuid()
    assert peer_uid(None) is None


@pytest.fixture
async def raw(
    daemon: DaemonServer,
) -> AsyncIterator[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    reader, writer = await asyncio.open_unix_connection(str(daemon.socket_path), limit=1 << 23)
    await reader.readline()  # hello
    yield reader, writer
    writer.close()


async def _ask(raw: tuple[asyncio.StreamReader, asyncio.StreamWriter], line: bytes) -> Reply:
    reader, writer = raw
    writer.write(line + b"\n")
    await writer.drain()
    return ReplyAdapter.validate_json(await asyncio.wait_for(reader.readline(), 10))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
        (b'{"type": "list", "id": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested"),
        (b'{"type": "list", "id": ' + b"9" * 5000 + b"}", "malformed JSON"),
        (b'{"type": "list", "id": NaN}', "invalid request"),
        (b"\xff\xfe{}", "malformed JSON"),
        (b"null", "invalid request"),
        (b'"list"', "invalid request"),
        (b'{"type": {"type": "list"}, "id": 1}', "unknown request type"),
    ],
)
async def test_hostile_input_gets_an_error_answer_and_the_connection_stays(
    raw: tuple[asyncio.StreamReader, asyncio.StreamWriter], line: bytes, message: str
) -> None:
    reply = await _ask(raw, line)
    assert reply.type == "error" and message in reply.message, reply
    after = await _ask(raw, json.dumps({"type": "list", "id": 7}).encode())
    assert after.type == "agents" and after.id == 7


def test_the_daemon_log_is_private(tmp_path: Path) -> None:
    fresh = private_log(tmp_path / "daemon.log")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600
    loose = tmp_path / "old.log"
    loose.write_text("earlier\n")
    loose.chmod(0o644)
    assert stat.S_IMODE(private_log(loose).stat().st_mode) == 0o600
    assert loose.read_text() == "earlier\n"


async def test_a_refused_greeting_reaches_the_client_as_one_line() -> None:
    reader = asyncio.StreamReader()
    refusal = ErrorReply(id=None, message="refused: the daemon serves uid 0 only, not uid 7")
    reader.feed_data(refusal.model_dump_json().encode() + b"\n")
    with pytest.raises(DaemonError, match="serves uid 0 only"):
        await _read_hello(reader)


async def test_a_started_daemon_writes_a_private_log(harness_home: Path) -> None:
    old_umask = os.umask(0o022)
    try:
        await start_daemon(daemon_args=DAEMON_ARGS)
    finally:
        os.umask(old_umask)
    try:
        assert stat.S_IMODE(daemon_log_path(harness_home).stat().st_mode) == 0o600
    finally:
        assert await stop_daemon() is True

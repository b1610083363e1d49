"""Framing and broken requests, over a raw socket: every error is a reply, never a hang-up."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agent.daemon.server import DaemonServer
from common.protocol_wire import MAX_FRAME_BYTES, PROTOCOL_VERSION
from common.schemas.protocol import Hello, Reply, ReplyAdapter

LIMIT = 4 * MAX_FRAME_BYTES


class RawConnection:
    """Lines in, replies out, with nothing of the client in between."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def send(self, line: bytes) -> None:
        self.writer.write(line)
        await self.writer.drain()

    async def reply(self) -> Reply:
        line = await asyncio.wait_for(self.reader.readline(), 10)
        assert line.endswith(b"\n")
        return ReplyAdapter.validate_json(line)

    async def ask(self, request: dict[str, Any]) -> Reply:
        await self.send(json.dumps(request).encode() + b"\n")
        return await self.reply()


@pytest.fixture
async def raw(daemon: DaemonServer) -> AsyncIterator[RawConnection]:
    reader, writer = await asyncio.open_unix_connection(str(daemon.socket_path), limit=LIMIT)
    yield RawConnection(reader, writer)
    writer.close()


async def test_the_daemon_greets_first(raw: RawConnection) -> None:
    hello = await raw.reply()

    assert isinstance(hello, Hello)
    assert hello.protocol_version == PROTOCOL_VERSION == 3
    assert hello.final is False


async def test_every_reply_repeats_the_request_id(raw: RawConnection) -> None:
    await raw.reply()

    for request_id in (0, 7, 123456):
        reply = await raw.ask({"id": request_id, "type": "list"})
        assert reply.type == "agents" and reply.id == request_id and reply.final


@pytest.mark.parametrize(
    ("line", "reply_id", "message"),
    [
        pytest.param(b"{nope\n", None, "malformed JSON", id="malformed-json"),
        pytest.param(b"[1, 2]\n", None, "invalid request", id="not-an-object"),
        pytest.param(b'{"id": 3}\n', 3, "request has no 'type'", id="no-type"),
        pytest.param(
            b'{"id": 4, "type": "dance"}\n', 4, "unknown request type 'dance'", id="unknown-type"
        ),
        pytest.param(
            b'{"id": 5, "type": "stop"}\n', 5, "invalid request: agent: Field required", id="schema"
        ),
        pytest.param(
            b'{"id": 6, "type": "list", "extra": 1}\n', 6, "invalid request: extra", id="extra"
        ),
        pytest.param(
            b'{"id": -1, "type": "list"}\n', None, "invalid request: id", id="negative-id"
        ),
        pytest.param(
            b'{"id": 8, "type": "list", "pad": "' + b"x" * (MAX_FRAME_BYTES + 10) + b'"}\n',
            None,
            f"frame longer than {MAX_FRAME_BYTES} bytes",
            id="oversized",
        ),
    ],
)
async def test_a_broken_request_is_answered_and_the_connection_stays(
    raw: RawConnection, line: bytes, reply_id: int | None, message: str
) -> None:
    await raw.reply()

    await raw.send(line)
    error = await raw.reply()

    assert error.type == "error"
    assert error.id == reply_id
    assert message in error.message
    assert error.final is True
    after = await raw.ask({"id": 99, "type": "list"})
    assert after.type == "agents" and after.id == 99


async def test_a_request_right_behind_an_oversized_line_is_answered(raw: RawConnection) -> None:
    await raw.reply()
    oversized = b"y" * (3 * MAX_FRAME_BYTES)

    await raw.send(oversized + b'\n{"id": 1, "type": "list"}\n')

    error = await raw.reply()
    assert error.type == "error" and error.id is None
    answer = await raw.reply()
    assert answer.type == "agents" and answer.id == 1


async def test_a_request_just_under_the_limit_is_accepted(raw: RawConnection) -> None:
    await raw.reply()
    request = {"id": 1, "type": "status", "agent": "a" * (MAX_FRAME_BYTES - 100)}

    reply = await raw.ask(request)

    assert reply.type == "error" and reply.id == 1
    assert reply.message == f"no agent named {'a' * 80}..."

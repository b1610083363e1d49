"""NDJSON framing shared by the daemon and its clients: one JSON object per line.

Readers are created with a large ``limit``; a longer line is read to its end and
dropped, so one oversized frame costs an error reply, not the connection.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from common.errors import ProtocolError

_NEWLINE = b"\n"


class FrameTooLargeError(ProtocolError):
    """A line longer than the reader's limit arrived; it has been discarded."""


def encode_frame(frame: BaseModel) -> bytes:
    """One model as one line (JSON never contains a raw newline)."""
    return frame.model_dump_json().encode() + _NEWLINE


async def read_frame(reader: asyncio.StreamReader, limit: int) -> bytes | None:
    """The next line without its newline, or ``None`` at the end of the stream.

    ``limit`` must be the one ``reader`` was created with; it is only quoted in
    the error.

    Raises:
        FrameTooLargeError: the line was longer than ``limit``; it was skipped.
    """
    try:
        line = await reader.readuntil(_NEWLINE)
    except asyncio.IncompleteReadError as e:
        return e.partial or None
    except asyncio.LimitOverrunError as e:
        await _discard_line(reader)
        raise FrameTooLargeError(f"frame longer than {limit} bytes; discarded") from e
    return line[:-1]


async def _discard_line(reader: asyncio.StreamReader) -> None:
    """Consume everything up to and including the next newline (or the end of the stream)."""
    while True:
        try:
            await reader.readuntil(_NEWLINE)
        except asyncio.LimitOverrunError as e:
            await reader.readexactly(e.consumed)
        except asyncio.IncompleteReadError:
            return
        else:
            return

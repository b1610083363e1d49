"""Following an agent: its log file as it grows, and its status until it ends.

What is printed is escaped (:mod:`common.untrusted_text`) as it is read, whatever the
file holds: a log written by an older harness, or raw bytes a program printed, cannot
drive the person's terminal.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import sys
from collections.abc import Awaitable
from pathlib import Path
from typing import TextIO

from watchfiles import awatch

from agent.daemon.client import DaemonClient
from common.schemas.agent_state import Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo
from common.untrusted_text import printable, printable_bytes, printable_line

FINISHED = frozenset({AgentStatus.DONE, AgentStatus.FAILED, AgentStatus.STOPPED})
CHUNK = 1 << 16


class LogTail:
    """Reads a growing file by byte offset; a shrunk file is read again from the start."""

    def __init__(self, path: Path, offset: int = 0) -> None:
        self.path = path
        self.offset = offset
        # A character cut in two by a read waits for its second half, not escaped as bytes.
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")

    def read_new(self) -> str:
        """Everything appended since the last call, decoded leniently and escaped."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return ""
        if size < self.offset:
            self.offset = 0
            self._decoder.reset()
        if size == self.offset:
            return ""
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read(size - self.offset)
        self.offset += len(data)
        return printable(self._decoder.decode(data))


def last_lines(path: Path, count: int, block: int = CHUNK) -> tuple[str, int]:
    """The last ``count`` lines of ``path`` (escaped) and the file's size when they were read.

    The file is read backwards in blocks of ``block`` bytes until ``count`` line ends
    are seen, so memory follows the lines asked for, not the file (a 1 GB log costs
    a few blocks). A missing file has no lines.
    """
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        return "", 0
    with handle:
        end = handle.seek(0, os.SEEK_END)
        if count <= 0:
            return "", end
        blocks: list[bytes] = []
        newlines = 0
        position = end
        while position > 0 and newlines <= count:
            step = min(block, position)
            position -= step
            handle.seek(position)
            data = handle.read(step)
            blocks.append(data)
            newlines += data.count(b"\n")
    data = b"".join(reversed(blocks))
    ends_with_newline = data.endswith(b"\n")
    lines = data.split(b"\n")
    if ends_with_newline:
        lines.pop()
    text = b"\n".join(lines[-count:]) + (b"\n" if ends_with_newline and lines else b"")
    return printable_bytes(text), end


async def follow_log(
    path: Path, ended: Awaitable[object], out: TextIO = sys.stdout, *, offset: int = 0
) -> None:
    """Print what is appended to ``path`` after ``offset`` until ``ended`` completes.

    Then the rest of the file is printed and the function returns, so ``harness logs
    -f`` ends when the agent ends; an exception of ``ended`` is raised here.
    """
    tail = LogTail(path, offset)
    out.write(tail.read_new())
    out.flush()
    stop = asyncio.Event()
    watcher = asyncio.ensure_future(ended)
    watcher.add_done_callback(lambda _: stop.set())
    try:
        async for _changes in awatch(
            path.parent, debounce=50, step=20, recursive=False, stop_event=stop
        ):
            text = tail.read_new()
            if text:
                out.write(text)
                out.flush()
        await watcher
    finally:
        watcher.cancel()
    out.write(tail.read_new())
    out.flush()


async def wait_until_finished(
    names: list[str],
    out: TextIO = sys.stdout,
    *,
    show_hints: bool = True,
    detached: bool = True,
) -> dict[str, AgentInfo]:
    """Stream the agents' status changes until each is done, failed or stopped.

    Interrupted (Ctrl-C) with ``show_hints``, it says on stderr which agents keep
    running and how to follow or stop them, then lets the interruption go on: the agents
    are the daemon's, and a person who stops watching has not stopped them. ``detached``
    ``False``: the caller stops them itself (the GitLab demo), so nothing is said.
    """
    last: dict[str, AgentInfo] = {}
    try:
        async with DaemonClient.connect() as client:
            async for frame in client.subscribe():
                changed = frame if isinstance(frame, list) else [frame.agent]
                for info in changed:
                    if info.name not in names:
                        continue
                    previous = last.get(info.name)
                    last[info.name] = info
                    if show_hints:
                        _report(previous, info, out)
                if all(n in last and last[n].status in FINISHED for n in names):
                    return last
    except asyncio.CancelledError:
        running = [n for n in names if n not in last or last[n].status not in FINISHED]
        if show_hints and detached and running:
            print(still_running(running), file=sys.stderr, flush=True)
        raise
    return last


def still_running(names: list[str]) -> str:
    """What a person who interrupted ``--wait`` needs: the agents go on, and the commands
    that follow or stop them."""
    if len(names) == 1:
        name = names[0]
        return (
            f"interrupted: {name} keeps running; `harness logs {name} -f` follows it, "
            f"`harness stop {name}` stops it"
        )
    return (
        f"interrupted: {', '.join(names)} keep running; `harness list` shows them, "
        "`harness logs AGENT -f` follows one, `harness stop AGENT` stops it"
    )


def _report(previous: AgentInfo | None, info: AgentInfo, out: TextIO) -> None:
    """One line per change that matters to a person: a phase, a status, a checkpoint.

    An ended agent's line is its last, the one line of its outcome (and reason): the
    phase is named only for a stop, where it says how far the agent got.
    """
    phase = info.phase.value if info.phase else "starting"
    changed = (
        previous is None
        or previous.phase != info.phase
        or previous.status != info.status
        or previous.pending_checkpoint != info.pending_checkpoint
    )
    ending = info.phase in (Phase.DONE, Phase.FAILED) and info.status not in FINISHED
    if not changed or ending:  # the exit itself is reported next
        return
    line = f"{info.name}: {info.status.value}"
    if info.status not in FINISHED:
        line += f" — {phase}"
    elif info.status is AgentStatus.STOPPED and info.phase not in (None, Phase.DONE, Phase.FAILED):
        line += f" at {phase}"
    if info.pending_checkpoint is not None:
        line += (
            f" — checkpoint {info.pending_checkpoint.value} waits: "
            f"`harness checkpoint {info.name}`, then `harness approve {info.name}`"
        )
    if info.reason:
        line += f" — {info.reason}"
    out.write(printable_line(line) + "\n")
    out.flush()

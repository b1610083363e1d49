"""Following an agent: its log file as it grows, and its status until it ends."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from watchfiles import awatch

from agent.daemon.client import DaemonClient
from common.schemas.agent_state import Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo

FINISHED = frozenset({AgentStatus.DONE, AgentStatus.FAILED, AgentStatus.STOPPED})
CHUNK = 1 << 16


class LogTail:
    """Reads a growing file by byte offset; a shrunk file is read again from the start."""

    def __init__(self, path: Path, offset: int = 0) -> None:
        self.path = path
        self.offset = offset

    def read_new(self) -> str:
        """Everything appended since the last call (decoded leniently)."""
        try:
            size = self.path.stat().st_size
        except FileNotFoundError:
            return ""
        if size < self.offset:
            self.offset = 0
        if size == self.offset:
            return ""
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read(size - self.offset)
        self.offset += len(data)
        return data.decode(errors="replace")


async def follow_log(path: Path, out: TextIO = sys.stdout) -> None:
    """Print ``path`` and then whatever is appended, until cancelled."""
    tail = LogTail(path)
    out.write(tail.read_new())
    out.flush()
    async for _changes in awatch(path.parent, debounce=50, step=20, recursive=False):
        text = tail.read_new()
        if text:
            out.write(text)
            out.flush()


async def wait_until_finished(
    names: list[str], out: TextIO = sys.stdout, *, show_hints: bool = True
) -> dict[str, AgentInfo]:
    """Stream the agents' status changes until each is done, failed or stopped."""
    last: dict[str, AgentInfo] = {}
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
    return last


def _report(previous: AgentInfo | None, info: AgentInfo, out: TextIO) -> None:
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
    line = f"{info.name}: {info.status.value} — {phase}"
    if info.pending_checkpoint is not None:
        line += (
            f" — checkpoint {info.pending_checkpoint.value} waits: "
            f"`harness checkpoint {info.name}`, then `harness approve {info.name}`"
        )
    if info.reason:
        line += f" — {info.reason}"
    out.write(line + "\n")
    out.flush()

"""``harness trace``: read an agent's trace (``harness replay`` finds it here too).

AGENT is an agent's name (asked of the daemon) or a workspace folder (no daemon
needed: an eval's agents, or a workspace copied from elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

from agent.control import trace_view
from agent.core.trace.trace import TRACE_FILE, read_trace
from agent.daemon.client import DaemonClient
from common.errors import HarnessError
from common.paths import WorkspaceFiles
from common.schemas.trace import TraceEvent


class TraceError(HarnessError):
    """An agent has no trace, or its trace cannot be read."""


async def workspace_of(agent: str) -> Path:
    """The workspace of ``agent``: a folder given as such, else the daemon's agent."""
    folder = Path(agent)
    if await asyncio.to_thread((folder / TRACE_FILE).is_file):
        return folder.absolute()  # noqa: ASYNC240 - no I/O
    async with DaemonClient.connect() as client:
        return (await client.status(agent)).workspace


async def load_events(agent: str) -> list[TraceEvent]:
    """Every event of the agent's trace.

    Raises:
        TraceError: no trace, or a line that is not a trace event.
    """
    root = await workspace_of(agent)
    path = WorkspaceFiles(root).root / TRACE_FILE
    if not path.is_file():
        raise TraceError(f"{agent} has no trace ({path} does not exist)")
    try:
        return read_trace(path)
    except ValueError as e:
        raise TraceError(str(e)) from e


async def cmd_trace(args: argparse.Namespace) -> int:
    events = trace_view.select(await load_events(args.agent), args.session)
    if args.session is not None and not events:
        raise TraceError(f"{args.agent}'s trace has no session {args.session}")
    if args.json:
        for event in events:  # ASCII only: a string's bidi or C1 character is a \u escape
            data = event.model_dump(mode="json")
            sys.stdout.write(json.dumps(data, ensure_ascii=True, separators=(",", ":")) + "\n")
    else:
        sys.stdout.write(trace_view.render(events))
    return 0

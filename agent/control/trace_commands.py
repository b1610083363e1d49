"""``harness trace`` and ``harness replay``: read an agent's trace, or replay a session.

AGENT is an agent's name (asked of the daemon) or a workspace folder (no daemon
needed: an eval's agents, or a workspace copied from elsewhere).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

from agent.control import replay, trace_view
from agent.core.log import AgentLog
from agent.core.trace import TRACE_FILE, read_trace
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


async def cmd_replay(args: argparse.Namespace) -> int:
    events = await load_events(args.agent)
    log = AgentLog(sys.stderr) if args.verbose else AgentLog(io.StringIO())
    result = await replay.replay_session(events, args.session, log)
    label = result.recorded.start.label
    if result.error:
        print(f"the replayed session failed: {result.error}")
    if not result.differences and result.error is None:
        print(f"session {args.session} ({label}): the harness behaved as recorded")
        return 0
    print(f"session {args.session} ({label}): {len(result.differences)} difference(s)")
    for line in result.differences:
        print(f"  - {line}")
    return 1


def add_parsers(add: Callable[..., argparse.ArgumentParser]) -> None:
    """Declare ``trace`` and ``replay`` through ``harness``'s ``add(name, command, help)``."""
    trace = add("trace", cmd_trace, "show an agent's trace: sessions, requests, tools, gates")
    trace.add_argument("agent", help="an agent's name, or its workspace folder")
    trace.add_argument("--session", type=int, metavar="N", help="only session N")
    trace.add_argument("--json", action="store_true", help="the events as JSON lines")
    again = add("replay", cmd_replay, "run a recorded session again against its recorded answers")
    again.add_argument("agent", help="an agent's name, or its workspace folder")
    again.add_argument("--session", type=int, required=True, metavar="N")
    again.add_argument("--verbose", action="store_true", help="show the replayed session's log")

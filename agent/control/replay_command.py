"""``harness replay``: run a recorded session again against its recorded answers.

Apart from ``harness trace`` because a replay runs a real session (the Claude SDK and
its CLI, an embedded model): reading a trace must not load them.
"""

from __future__ import annotations

import argparse
import io
import sys

from agent.control import replay
from agent.control.trace_commands import load_events
from agent.core.log import AgentLog


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

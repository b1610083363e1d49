"""``harness replay``: run a recorded session again against its recorded answers.

Apart from ``harness trace`` because a replay runs a real session (the Claude SDK and
its CLI, an embedded model): reading a trace must not load them.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from agent.control import replay
from agent.control.trace_commands import load_events, workspace_of
from agent.core.log import AgentLog
from agent.sandbox.binary import find_bwrap, probe
from common.atomic import read_model, read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.workspace import WorkspaceInfo


async def cmd_replay(args: argparse.Namespace) -> int:
    events = await load_events(args.agent)
    box = replay_box(WorkspaceFiles(await workspace_of(args.agent)))
    log = AgentLog(sys.stderr) if args.verbose else AgentLog(io.StringIO())
    result = await replay.replay_session(events, args.session, log, box)
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


def replay_box(files: WorkspaceFiles) -> replay.ReplayBox | None:
    """The sandbox the agent of ``files`` ran its sessions in (``None``: its spec turned
    the sandbox off), with the layout it recorded.

    Raises:
        replay.ReplayError: the agent was sandboxed and bubblewrap cannot run here: the
            model's recorded commands are never run again outside the sandbox.
    """
    spec = read_model(files.info, WorkspaceInfo).spec
    if not spec.sandbox:
        return None
    bwrap = find_bwrap()
    reason = probe(bwrap)
    if reason is not None or bwrap is None:
        raise replay.ReplayError(
            f"{reason}; the replay runs the model's recorded commands in the sandbox, as "
            "its agent did, and never outside it"
        )
    state = read_model_or_none(files.state, AgentState)
    layout = state.sandbox_layout if state is not None else None
    return replay.ReplayBox(Path(bwrap), layout, spec.sandbox_network)

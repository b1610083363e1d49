"""``harness checkpoint``: show what an agent waits for (answered by
:mod:`agent.control.answer_commands`), escaped, as text, with its diff, or as JSON."""

from __future__ import annotations

import argparse
import json

from agent.control.agent_info import agent_info
from agent.daemon.agent_view import ended_line
from common.paths import WorkspaceFiles
from common.schemas.daemon_state import AgentStatus
from common.workspace import checkpoints
from common.workspace.diff_text import diff_lines
from common.workspace.render import render_checkpoint


async def cmd_checkpoint(args: argparse.Namespace) -> int:
    info = await agent_info(args.agent)
    if info.status not in (AgentStatus.RUNNING, AgentStatus.WAITING):
        print(ended_line(info))
        return 1
    found = checkpoints.current(WorkspaceFiles(info.workspace))
    if found is None or found.status != "pending":
        print(f"{info.name}: no checkpoint is waiting")
        return 1
    if args.json:
        # ASCII only: a model-written string keeps its data yet cannot act on a terminal.
        print(json.dumps(found.model_dump(mode="json"), indent=2, ensure_ascii=True))
        return 0
    # The diff before the answer box: the box is the last thing the person reads.
    details = diff_lines(found) if args.full else []
    print(render_checkpoint(found, agent=info.name, details=details))
    return 0

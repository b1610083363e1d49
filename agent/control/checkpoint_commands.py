"""``harness checkpoint``, ``approve`` and ``reject``: show or answer what an agent waits for.

The answer is written to the agent's workspace (signed, :mod:`agent.control.answer`);
the agent acts on it as soon as it sees the file, so the time from ``harness approve``
typed to the agent acting is this module's start-up: it imports only the daemon's client
and the workspace protocol.
"""

from __future__ import annotations

import argparse
import json

from agent.control import answer
from agent.control.agent_commands import agent_info
from common.paths import WorkspaceFiles
from common.workspace import checkpoints
from common.workspace.diff_text import diff_lines
from common.workspace.render import render_checkpoint


async def cmd_checkpoint(args: argparse.Namespace) -> int:
    info = await agent_info(args.agent)
    found = checkpoints.current(WorkspaceFiles(info.workspace))
    if found is None or found.status != "pending":
        print(f"{info.name}: no checkpoint is waiting")
        return 1
    if args.json:
        # ASCII only: a model-written string keeps its data yet cannot act on a terminal.
        print(json.dumps(found.model_dump(mode="json"), indent=2, ensure_ascii=True))
        return 0
    print(render_checkpoint(found, agent=info.name))
    if args.full:
        print("\n".join(diff_lines(found)))
    return 0


async def cmd_approve(args: argparse.Namespace) -> int:
    info = await agent_info(args.agent)
    decided = answer.approve(
        info.workspace,
        args.choice,
        args.reason,
        checkpoint_id=args.checkpoint,
        not_after=args.started,
    )
    print(f"{info.name}: {decided.type.value} approved")
    return 0


async def cmd_reject(args: argparse.Namespace) -> int:
    info = await agent_info(args.agent)
    decided = answer.reject(
        info.workspace, args.reason, checkpoint_id=args.checkpoint, not_after=args.started
    )
    print(f"{info.name}: {decided.type.value} rejected")
    return 0

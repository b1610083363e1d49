"""``harness approve`` and ``harness reject``: answer what an agent waits for.

The answer is written to the agent's workspace (signed, :mod:`common.workspace.answer`);
the agent acts as soon as it sees the file, so the time from the command typed to the
agent acting is mostly this module's start-up: it imports the daemon's client and the
workspace protocol, nothing else (no log follower, no checkpoint rendering).
"""

from __future__ import annotations

import argparse

from agent.control.agent_info import agent_info
from common.workspace import answer


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

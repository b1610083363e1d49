"""``harness approve`` and ``harness reject``: answer what an agent waits for.

The daemon signs and writes the answer (:mod:`agent.daemon.answer_client`); the agent
acts as soon as it sees the file. So the time from the command typed to the agent
acting is mostly this command's start-up, and this module imports the standard
library's socket and json and nothing else: no schema, no event loop.
"""

from __future__ import annotations

import argparse

from agent.daemon.answer_client import Answer, Answered, send


def cmd_approve(args: argparse.Namespace) -> int:
    reply = _send(args, approve=True, choice=args.choice)
    print(f"{reply.agent}: {reply.checkpoint_type} approved")
    return 0


def cmd_reject(args: argparse.Namespace) -> int:
    reply = _send(args, approve=False, choice=None)
    print(f"{reply.agent}: {reply.checkpoint_type} rejected")
    return 0


def _send(args: argparse.Namespace, *, approve: bool, choice: str | None) -> Answered:
    return send(
        Answer(
            agent=args.agent,
            approve=approve,
            choice=choice,
            reason=args.reason,
            checkpoint_id=args.checkpoint,
            not_after=args.started,
        )
    )

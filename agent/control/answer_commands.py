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
    print(decided_line(_send(args, approve=True, choice=args.choice)))
    return 0


def cmd_reject(args: argparse.Namespace) -> int:
    print(decided_line(_send(args, approve=False, choice=None)))
    return 0


def decided_line(reply: Answered) -> str:
    """``agent_1: mr_review (mr_review-15) approved``: the very checkpoint decided, by id,
    so the person can tell it is the one on their screen."""
    verdict = "approved" if reply.approved else "rejected"
    return f"{reply.agent}: {reply.checkpoint_type} ({reply.checkpoint_id}) {verdict}"


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

"""A checkpoint as text, in the seed's output format (for logs and the CLI).

A person decides on this text, and much of it the model wrote (issue titles, file
names, its summary, its claim, the merge request). Every value is escaped
(:mod:`common.untrusted_text`): one-line values stay on their line, and the model's
prose (its summary, its claim, the merge request's description) is a block whose
every line starts with :data:`~common.untrusted_text.MODEL_MARK`, so nothing the model
wrote can draw, clear or colour the screen, or pass for the harness's own lines.
"""

from __future__ import annotations

import shlex
import textwrap
from collections.abc import Sequence

from common.schemas.checkpoint import Checkpoint
from common.untrusted_text import printable, printable_line
from common.workspace.diff_text import flag_lines
from common.workspace.kinds import kind_of
from common.workspace.kinds.lines import (
    flagged_lines,
    one,
    since_rejection_lines,
    since_rejection_summary,
)

__all__ = [
    "cli_hints",
    "context_lines",
    "flagged_lines",
    "render_checkpoint",
    "since_rejection_lines",
    "since_rejection_summary",
]

RULE = "=" * 64
BOX_WIDTH = 61


def render_checkpoint(
    checkpoint: Checkpoint, agent: str | None = None, details: Sequence[str] = ()
) -> str:
    """WHAT HAPPENED, the context details, IF APPROVED / IF REJECTED, and how to answer:
    the TUI's keys in the agent's log, the ``harness`` commands for ``agent`` when given
    (``harness checkpoint`` is read in a shell, where keys do nothing).

    ``details`` (``harness checkpoint --full``: the diff, already escaped) go after the
    context and before the answer box, so that the box is the last thing on screen,
    where the person who read the rest is about to answer."""
    title = f"HITL CHECKPOINT: {checkpoint.type.value.upper()}  ({one(checkpoint.id)})"
    lines = [RULE, title, RULE]
    lines += ["", "WHAT HAPPENED:"]
    lines += [f"  ✓ {one(item)}" for item in checkpoint.what_happened]
    lines += [f"  → {one(checkpoint.to_decide)}", ""]
    lines += context_lines(checkpoint)
    lines += [*([""] if details else []), *details]
    lines += ["", *_box(checkpoint.if_approved, checkpoint.if_rejected), "", RULE]
    lines += _tui_hints(checkpoint) if agent is None else cli_hints(checkpoint, agent)
    lines.append(RULE)
    if checkpoint.decision is not None:
        verdict = "APPROVED" if checkpoint.decision.approved else "REJECTED"
        rule = checkpoint.decision.rule
        why = f" ({one(rule)})" if rule else ""
        lines.append(f"DECISION: {verdict} by {one(checkpoint.decision.decided_by)}{why}")
    return printable("\n".join(lines))  # the net under the escaping of each value


def _tui_hints(checkpoint: Checkpoint) -> list[str]:
    lines = ["  TUI SHORTCUTS:", "    [Y] or [1]  →  APPROVE"]
    blocked = kind_of(checkpoint).reject_blocked
    lines.append("    [X] or [0]  →  REJECT" if blocked is None else f"    {blocked}")
    return lines


def cli_hints(checkpoint: Checkpoint, agent: str) -> list[str]:
    """The commands that answer ``checkpoint`` of ``agent`` from a shell."""
    kind = kind_of(checkpoint)
    name = shlex.quote(printable_line(agent))
    lines = ["  ANSWER WITH:"]
    if kind.reject_blocked is not None:
        return [*lines, *kind.choice_hints(checkpoint, name), f"    ({kind.reject_blocked})"]
    lines.append(f"    harness approve {name}{kind.approve_note(checkpoint)}")
    lines += kind.choice_hints(checkpoint, name)
    lines.append(f"    harness reject {name} --reason TEXT")
    return lines


def context_lines(checkpoint: Checkpoint, *, diff_flags: bool = True) -> list[str]:
    """The context-specific details of one checkpoint (its type's own lines), then the
    lines of its diff to read whole, in the harness's words (``diff_flags``: the TUI says
    them above the diff itself instead)."""
    lines = kind_of(checkpoint).context_lines(checkpoint)
    return [*lines, *flag_lines(checkpoint)] if diff_flags else lines


def _box(approved: str, rejected: str) -> list[str]:
    def wrapped(text: str) -> list[str]:
        return textwrap.wrap(
            f"→ {one(text)}", BOX_WIDTH - 4, initial_indent="   ", subsequent_indent="     "
        )

    inner = [" IF APPROVED:", *wrapped(approved), "", " IF REJECTED:", *wrapped(rejected)]
    top = "┌" + "─" * BOX_WIDTH + "┐"
    bottom = "└" + "─" * BOX_WIDTH + "┘"
    return [top, *(f"│{line[:BOX_WIDTH]:<{BOX_WIDTH}}│" for line in inner), bottom]

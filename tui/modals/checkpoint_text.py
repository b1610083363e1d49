"""What a checkpoint dialog says, in the seed's structure.

WHAT HAPPENED (done ✓, to decide →), the context details (the same lines the
agent's log and ``harness checkpoint`` print), IF APPROVED / IF REJECTED, and
what the quick keys will do for this particular checkpoint (the labels are its
type's rules, :mod:`common.workspace.kinds`). Every text from the checkpoint is
escaped (:mod:`common.untrusted_text`) and never read as markup.
"""

from __future__ import annotations

from textual.content import Content

from common.schemas.checkpoint import Checkpoint
from common.untrusted_text import printable_line
from common.workspace import long_lines
from common.workspace.diff_text import ReviewDiff
from common.workspace.kinds import kind_of
from common.workspace.render import context_lines


def what_happened(checkpoint: Checkpoint, review: ReviewDiff | None = None) -> Content:
    """The ✓ lines, the harness's ⚠ when ``review`` (the checkpoint's diff) has lines to
    read whole, and the → question."""
    lines = [Content.styled("WHAT HAPPENED", "bold")]
    lines += [
        Content.assemble(("  ✓ ", "$success"), printable_line(item))
        for item in checkpoint.what_happened
    ]
    if review is not None and review.long_lines.total:
        said = f"{long_lines.summary(review.long_lines)}: see DIFF below, F full screen"
        lines.append(Content.assemble(("  ⚠ ", "bold $warning"), (said, "bold $warning")))
    question = printable_line(checkpoint.to_decide)
    lines.append(Content.assemble(("  → ", "bold $warning"), (question, "bold")))
    return Content("\n").join(lines)


def details(checkpoint: Checkpoint) -> str:
    """The context-specific lines (plain text: they quote code and issue titles; escaped,
    the model's prose marked as the model's, by :func:`context_lines`). The lines of the
    diff to read whole are not among them: the diff's own heading says them."""
    return "\n".join(context_lines(checkpoint, diff_flags=False))


def approve_label(checkpoint: Checkpoint) -> str:
    """What Y does here (the per-checkpoint default, as its type's rules say)."""
    return kind_of(checkpoint).approve_label(checkpoint)


def reject_label(checkpoint: Checkpoint) -> str | None:
    """What N does here; ``None`` where a plain reject is not allowed."""
    return kind_of(checkpoint).reject_label(checkpoint)


def shortcuts(checkpoint: Checkpoint) -> Content:
    """The seed's TUI SHORTCUTS, with what each key does for this checkpoint."""
    reject = reject_label(checkpoint)
    parts: list[str | Content | tuple[str, str]] = [
        ("[Y]", "bold $success"),
        " or ",
        ("[1]", "bold $success"),
        f" {approve_label(checkpoint)}   ",
    ]
    if reject is None:
        parts += [("[N]", "dim"), " reject is blocked: choose an action with R   "]
    else:
        parts += [("[N] [X] [0]", "bold $error"), f" {reject}   "]
    parts += [("[R]", "bold $accent"), " review   ", ("[Esc]", "bold"), " later"]
    return Content.assemble(*parts)

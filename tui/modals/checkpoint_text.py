"""What a checkpoint dialog says, in the seed's structure.

WHAT HAPPENED (done ✓, to decide →), the context details (the same lines the
agent's log and ``harness checkpoint`` print), IF APPROVED / IF REJECTED, and
what the quick keys will do for this particular checkpoint. Every text from the
checkpoint is escaped (:mod:`common.untrusted_text`) and never read as markup.
"""

from __future__ import annotations

from textual.content import Content

from common.schemas.checkpoint import (
    BudgetReachedCheckpoint,
    Checkpoint,
    EnrichmentScopeCheckpoint,
    IssueClosureCheckpoint,
    IssueEnrichmentCheckpoint,
    IssueSelectionCheckpoint,
    RegressionApprovalCheckpoint,
)
from common.untrusted_text import printable_line
from common.workspace.render import context_lines


def what_happened(checkpoint: Checkpoint) -> Content:
    """The ✓ lines and the → question."""
    lines = [Content.styled("WHAT HAPPENED", "bold")]
    lines += [
        Content.assemble(("  ✓ ", "$success"), printable_line(item))
        for item in checkpoint.what_happened
    ]
    question = printable_line(checkpoint.to_decide)
    lines.append(Content.assemble(("  → ", "bold $warning"), (question, "bold")))
    return Content("\n").join(lines)


def details(checkpoint: Checkpoint) -> str:
    """The context-specific lines (plain text: they quote code and issue titles; escaped,
    the model's prose marked as the model's, by :func:`context_lines`)."""
    return "\n".join(context_lines(checkpoint))


def approve_label(checkpoint: Checkpoint) -> str:
    """What Y does here (the per-checkpoint default)."""
    match checkpoint:
        case IssueEnrichmentCheckpoint(context=c):
            picked = ", ".join(f"#{iid}" for iid in c.recommended) or "none"
            return f"approve: enrich {picked}"
        case EnrichmentScopeCheckpoint():
            return "approve: keep the spec text"
        case RegressionApprovalCheckpoint():
            return "approve: fix_now"
        case IssueClosureCheckpoint(context=c) if c.flagged:
            return "review (R): choose for each flagged file"
        case IssueSelectionCheckpoint(context=c):
            return f"approve: issue #{c.recommended_iid}"
        case BudgetReachedCheckpoint():
            return "approve: merge_request"
    return "approve"


def reject_label(checkpoint: Checkpoint) -> str | None:
    """What N does here; ``None`` where a plain reject is not allowed."""
    match checkpoint:
        case RegressionApprovalCheckpoint():
            return None
        case IssueEnrichmentCheckpoint():
            return "reject: enrich none"
        case BudgetReachedCheckpoint():
            return "reject: stop"
        case EnrichmentScopeCheckpoint():
            return "reject: keep the spec text"
    return "reject"


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

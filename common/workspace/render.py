"""A checkpoint as text, in the seed's output format (for logs and the CLI)."""

from __future__ import annotations

import textwrap

from common.schemas.checkpoint import (
    BudgetReachedCheckpoint,
    Checkpoint,
    IssueClosureCheckpoint,
    IssueEnrichmentCheckpoint,
    IssueSelectionCheckpoint,
    MrPhaseTransitionCheckpoint,
    MrReviewCheckpoint,
    ProjectVerificationCheckpoint,
    RegressionApprovalCheckpoint,
    SpecToIssuesCheckpoint,
)

RULE = "=" * 64
BOX_WIDTH = 61


def render_checkpoint(checkpoint: Checkpoint) -> str:
    """WHAT HAPPENED, the context details, IF APPROVED / IF REJECTED, and the shortcuts."""
    lines = [RULE, f"HITL CHECKPOINT: {checkpoint.type.value.upper()}  ({checkpoint.id})", RULE]
    lines += ["", "WHAT HAPPENED:"]
    lines += [f"  ✓ {item}" for item in checkpoint.what_happened]
    lines += [f"  → {checkpoint.to_decide}", ""]
    lines += context_lines(checkpoint)
    lines += ["", *_box(checkpoint.if_approved, checkpoint.if_rejected), "", RULE]
    lines += ["  TUI SHORTCUTS:", "    [Y] or [1]  →  APPROVE"]
    if isinstance(checkpoint, RegressionApprovalCheckpoint):
        lines.append("    reject is blocked: choose fix_now, defer or abort")
    else:
        lines.append("    [X] or [0]  →  REJECT")
    lines.append(RULE)
    if checkpoint.decision is not None:
        verdict = "APPROVED" if checkpoint.decision.approved else "REJECTED"
        lines.append(f"DECISION: {verdict} by {checkpoint.decision.decided_by}")
    return "\n".join(lines)


def context_lines(checkpoint: Checkpoint) -> list[str]:
    """The context-specific details of one checkpoint."""
    match checkpoint:
        case ProjectVerificationCheckpoint(context=c):
            out = [
                f"Project:        {c.project_dir}",
                f"Branch:         {c.current_branch} (target {c.target_branch})",
                f"Feature branch: {c.feature_branch}",
                f"HEAD:           {c.head_commit[:12]}",
                f"Tracker:        {c.tracker}",
                f"Test command:   {c.test_command or '(none detected)'}",
            ]
            if c.baseline_tests is not None:
                out.append(f"Baseline tests: {c.baseline_tests.summary}")
            for name, run in c.quality_checks.items():
                verdict = "passes" if run.passed else f"fails ({run.summary})"
                out.append(f"Check {name}: `{run.command}` {verdict}")
            out += [f"Warning: {w}" for w in c.warnings]
            return out
        case SpecToIssuesCheckpoint(context=c):
            out = [f"Proposed issues (attempt {c.attempt}):"]
            for position, issue in enumerate(c.issues, start=1):
                star = " *" if position in c.recommended_enrichment else ""
                out.append(f"  {position}. {issue.title}{star}")
            if c.recommended_enrichment:
                out.append("  (* recommended for enrichment)")
            if c.feedback:
                out.append(f"Previous feedback: {c.feedback}")
            return out
        case IssueEnrichmentCheckpoint(context=c):
            out = ["Issues:"]
            for ref in c.issues:
                mark = "[x]" if ref.iid in c.recommended else "[ ]"
                out.append(f"  {mark} #{ref.iid} {ref.title}")
            return out
        case RegressionApprovalCheckpoint(context=c):
            where = (
                f"Issue #{c.issue_iid}: {c.issue_title}"
                if c.issue_iid is not None
                else "Before the merge request (every issue done)"
            )
            out = [where, "Newly failing:"]
            out += [f"  ✗ {name}" for name in c.newly_failing]
            out.append(f"Actions: {', '.join(a.value for a in c.actions)}")
            return out
        case IssueSelectionCheckpoint(context=c):
            out = [f"Open issues ({c.closed_count} closed so far):"]
            for ref in c.open_issues:
                star = "  ← recommended" if ref.iid == c.recommended_iid else ""
                out.append(f"  #{ref.iid} {ref.title}{star}")
            return out
        case IssueClosureCheckpoint(context=c):
            out = [
                f"Issue #{c.issue_iid}: {c.issue_title}",
                f"Commit: {c.commit_sha[:12]} {c.commit_message.splitlines()[0]}",
                f"Files: {', '.join(c.files_changed)}",
            ]
            if c.test_run is not None:
                out.append(f"Tests: {c.test_run.summary}")
            for name, run in c.checks.items():
                out.append(f"Check {name}: `{run.command}` {'passes' if run.passed else 'fails'}")
            if c.model_summary:
                out.append(f"Summary: {c.model_summary}")
            for refusal in c.gate_refusals:
                out.append(
                    f"Refused by the harness's test gate (session {refusal.session}): "
                    f"{refusal.test_run.summary}; failing: {', '.join(refusal.failing)}"
                )
                out.append(f"  the model had claimed: {refusal.claim}")
            return out
        case MrPhaseTransitionCheckpoint(context=c):
            out = [f"Closed issues: {len(c.closed_issues)}, open: {len(c.open_issues)}"]
            if c.test_run is not None:
                out.append(f"Final tests: {c.test_run.summary}")
            if c.skip_mr_creation:
                out.append("skip_mr_creation: the run stops on the feature branch")
            return out
        case BudgetReachedCheckpoint(context=c):
            out = [f"Reached: {line}" for line in c.reached]
            out.append(f"Spent: {c.spend.line()}")
            out += [f"  #{iid}: {spend.line()}" for iid, spend in sorted(c.issue_spend.items())]
            if c.current_issue is not None:
                out.append(f"In progress: #{c.current_issue} (set aside on merge_request)")
            out.append(f"Actions: {', '.join(a.value for a in c.actions)}")
            return out
        case MrReviewCheckpoint(context=c):
            return [
                f"Title: {c.title}",
                f"{c.source_branch} → {c.target_branch}, {len(c.commits)} commit(s)",
                "",
                c.description,
            ]
    return []


def _box(approved: str, rejected: str) -> list[str]:
    def wrapped(text: str) -> list[str]:
        return textwrap.wrap(
            f"→ {text}", BOX_WIDTH - 4, initial_indent="   ", subsequent_indent="     "
        )

    inner = [" IF APPROVED:", *wrapped(approved), "", " IF REJECTED:", *wrapped(rejected)]
    top = "┌" + "─" * BOX_WIDTH + "┐"
    bottom = "└" + "─" * BOX_WIDTH + "┘"
    return [top, *(f"│{line[:BOX_WIDTH]:<{BOX_WIDTH}}│" for line in inner), bottom]

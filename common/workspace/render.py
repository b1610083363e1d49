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

from common import dependencies
from common.schemas.checkpoint import (
    BudgetReachedCheckpoint,
    ChangesSinceRejection,
    Checkpoint,
    ClosureDecision,
    EnrichmentScopeCheckpoint,
    IssueClosureCheckpoint,
    IssueEnrichmentCheckpoint,
    IssueSelectionCheckpoint,
    MrPhaseTransitionCheckpoint,
    MrReviewCheckpoint,
    ProjectVerificationCheckpoint,
    RegressionApprovalCheckpoint,
    SpecToIssuesCheckpoint,
)
from common.schemas.coverage import gaps_line
from common.schemas.outbound import FlaggedFile
from common.untrusted_text import marked_lines, printable, printable_line

RULE = "=" * 64
BOX_WIDTH = 61


def render_checkpoint(checkpoint: Checkpoint, agent: str | None = None) -> str:
    """WHAT HAPPENED, the context details, IF APPROVED / IF REJECTED, and how to answer:
    the TUI's keys in the agent's log, the ``harness`` commands for ``agent`` when given
    (``harness checkpoint`` is read in a shell, where keys do nothing)."""
    title = f"HITL CHECKPOINT: {checkpoint.type.value.upper()}  ({_one(checkpoint.id)})"
    lines = [RULE, title, RULE]
    lines += ["", "WHAT HAPPENED:"]
    lines += [f"  ✓ {_one(item)}" for item in checkpoint.what_happened]
    lines += [f"  → {_one(checkpoint.to_decide)}", ""]
    lines += context_lines(checkpoint)
    lines += ["", *_box(checkpoint.if_approved, checkpoint.if_rejected), "", RULE]
    lines += _tui_hints(checkpoint) if agent is None else cli_hints(checkpoint, agent)
    lines.append(RULE)
    if checkpoint.decision is not None:
        verdict = "APPROVED" if checkpoint.decision.approved else "REJECTED"
        lines.append(f"DECISION: {verdict} by {_one(checkpoint.decision.decided_by)}")
    return printable("\n".join(lines))  # the net under the escaping of each value


def _tui_hints(checkpoint: Checkpoint) -> list[str]:
    lines = ["  TUI SHORTCUTS:", "    [Y] or [1]  →  APPROVE"]
    if isinstance(checkpoint, RegressionApprovalCheckpoint):
        lines.append("    reject is blocked: choose fix_now, defer or abort")
    else:
        lines.append("    [X] or [0]  →  REJECT")
    return lines


def cli_hints(checkpoint: Checkpoint, agent: str) -> list[str]:
    """The commands that answer ``checkpoint`` of ``agent`` from a shell."""
    name = shlex.quote(printable_line(agent))
    lines = ["  ANSWER WITH:"]
    if isinstance(checkpoint, RegressionApprovalCheckpoint):
        lines.append(f"    harness approve {name} --choice fix_now|defer|abort")
        lines.append("    (reject is blocked: choose fix_now, defer or abort)")
        return lines
    lines.append(f"    harness approve {name}")
    if isinstance(checkpoint, SpecToIssuesCheckpoint) and len(checkpoint.context.issues) > 1:
        lines.append(
            f"    harness approve {name} --choice 'depends=3:1,2;4:'   "
            "(3 depends on 1 and 2, 4 on none; the others as shown)"
        )
    if isinstance(checkpoint, EnrichmentScopeCheckpoint):
        some = ",".join(str(change.iid) for change in checkpoint.context.changes)
        lines[-1] += "   (applies none: every issue keeps its spec-faithful text)"
        lines.append(f"    harness approve {name} --choice {some}   (applies those enrichments)")
    lines.append(f"    harness reject {name} --reason TEXT")
    return lines


def _one(value: object) -> str:
    """A value shown inside one line: escaped, ``\\n`` too."""
    return printable_line(str(value))


def _names(names: list[str]) -> str:
    """Spec section names on one line, escaped; ``(none)`` for none."""
    return ", ".join(_one(name) for name in names) or "(none)"


def _model_block(label: str, text: str) -> list[str]:
    """The model's prose under ``label``, every line marked as the model's."""
    return [f"{label} (the model's words):", *(f"  {line}" for line in marked_lines(text))]


def context_lines(checkpoint: Checkpoint) -> list[str]:
    """The context-specific details of one checkpoint."""
    match checkpoint:
        case ProjectVerificationCheckpoint(context=c):
            out = [
                f"Project:        {_one(c.project_dir)}",
                f"Branch:         {_one(c.current_branch)} (target {_one(c.target_branch)})",
                f"Feature branch: {_one(c.feature_branch)}",
                f"HEAD:           {_one(c.head_commit[:12])}",
                f"Tracker:        {_one(c.tracker)}",
                f"Test command:   {_one(c.test_command or '(none detected)')}",
            ]
            if c.baseline_tests is not None:
                out.append(f"Baseline tests: {_one(c.baseline_tests.summary)}")
            for name, run in c.quality_checks.items():
                verdict = "passes" if run.passed else f"fails ({_one(run.summary)})"
                out.append(f"Check {_one(name)}: `{_one(run.command)}` {verdict}")
            out += [f"Warning: {_one(w)}" for w in c.warnings]
            return out
        case SpecToIssuesCheckpoint(context=c):
            out = [f"Proposed issues (attempt {c.attempt}):"]
            graph = checkpoint.dependencies()
            for position, issue in enumerate(c.issues, start=1):
                star = " *" if position in c.recommended_enrichment else ""
                out.append(f"  {position}. {_one(issue.title)}{star}")
                if c.spec_sections:
                    out.append(f"     spec: {_names(issue.spec_sections)}")
                if graph.get(position):
                    out.append(f"     {dependencies.depends_text(graph[position])}")
            if c.recommended_enrichment:
                out.append("  (* recommended for enrichment)")
            if c.uncovered_sections:
                out.append(f"Spec sections no issue covers: {_names(c.uncovered_sections)}")
            if c.feedback:
                out.append(f"Previous feedback: {_one(c.feedback)}")
            return out
        case IssueEnrichmentCheckpoint(context=c):
            out = ["Issues:"]
            for ref in c.issues:
                mark = "[x]" if ref.iid in c.recommended else "[ ]"
                out.append(f"  {mark} #{ref.iid} {_one(ref.title)}")
            return out
        case EnrichmentScopeCheckpoint(context=c):
            out = ["Enrichments that change their issue's scope (not applied yet):"]
            for change in c.changes:
                out.append(f"  #{change.iid} {_one(change.spec_title)}")
                out.append(
                    f"      enriched title (the model's words): {_one(change.enriched_title)}"
                )
                out += [f"      ✗ dropped or altered: {_one(item)}" for item in change.dropped]
            return out
        case RegressionApprovalCheckpoint(context=c):
            where = (
                f"Issue #{c.issue_iid}: {_one(c.issue_title)}"
                if c.issue_iid is not None
                else "Before the merge request (every issue done)"
            )
            out = [where, "Newly failing:"]
            out += [f"  ✗ {_one(name)}" for name in c.newly_failing]
            out.append(f"Actions: {', '.join(a.value for a in c.actions)}")
            return out
        case IssueSelectionCheckpoint(context=c):
            out = [f"Open issues ({c.closed_count} closed so far):"]
            for ref in c.open_issues:
                star = "  ← recommended" if ref.iid == c.recommended_iid else ""
                out.append(f"  #{ref.iid} {_one(ref.title)}{star}")
            if c.blocked:
                out.append("Blocked (their dependencies are not closed yet):")
            for blocked in c.blocked:
                waits = ", ".join(f"#{iid}" for iid in blocked.waiting_for)
                out.append(f"  #{blocked.iid} {_one(blocked.title)}  (waits for {waits})")
            return out
        case IssueClosureCheckpoint(context=c):
            out = [
                f"Issue #{c.issue_iid}: {_one(c.issue_title)}",
                f"Commit: {_one(c.commit_sha[:12])} {_one(_first_line(c.commit_message))}",
                f"Files: {', '.join(_one(name) for name in c.files_changed)}",
            ]
            if c.test_run is not None:
                out.append(f"Tests: {_one(c.test_run.summary)}")
            for name, run in c.checks.items():
                verdict = "passes" if run.passed else "fails"
                out.append(f"Check {_one(name)}: `{_one(run.command)}` {verdict}")
            if c.model_summary:
                out += _model_block("Summary", c.model_summary)
            for refusal in c.gate_refusals:
                out.append(
                    f"Refused by the harness's test gate (session {refusal.session}): "
                    f"{_one(refusal.test_run.summary)}; "
                    f"failing: {', '.join(_one(name) for name in refusal.failing)}"
                )
                out += [f"  {line}" for line in _model_block("The claim", refusal.claim)]
            out += [f"Not committed by the harness: {_one(line)}" for line in c.kept_out]
            out += [f"Over the issue's budget: {_one(item.reason)}" for item in c.issue_findings]
            if c.since_rejection is not None:
                out += since_rejection_lines(c.since_rejection)
            choices = (
                checkpoint.decision.files
                if isinstance(checkpoint.decision, ClosureDecision)
                else {}
            )
            out += flagged_lines(
                c.flagged, {path: choice.value for path, choice in choices.items()}
            )
            if c.flagged and checkpoint.decision is None:
                out.append(
                    "  Choose for each: harness approve AGENT --choice "
                    "'approve=PATH;exclude=PATH' (PATH * for the rest); reject sends it back"
                )
            return out
        case MrPhaseTransitionCheckpoint(context=c):
            out = [f"Closed issues: {len(c.closed_issues)}, open: {len(c.open_issues)}"]
            if c.test_run is not None:
                out.append(f"Final tests: {_one(c.test_run.summary)}")
            if c.skip_mr_creation:
                out.append("skip_mr_creation: the run stops on the feature branch")
            if c.coverage is not None and c.coverage.has_gaps:
                out.append(f"Partial: {_one(gaps_line(c.coverage, []))}")
            return out
        case BudgetReachedCheckpoint(context=c):
            out = [f"Reached: {_one(line)}" for line in c.reached]
            out.append(f"Spent: {c.spend.line()}")
            out += [f"  #{iid}: {spend.line()}" for iid, spend in sorted(c.issue_spend.items())]
            if c.current_issue is not None:
                out.append(f"In progress: #{c.current_issue} (set aside on merge_request)")
            out.append(f"Actions: {', '.join(a.value for a in c.actions)}")
            return out
        case MrReviewCheckpoint(context=c):
            return [
                f"Title (the model's words): {_one(c.title)}",
                f"{_one(c.source_branch)} → {_one(c.target_branch)}, {len(c.commits)} commit(s)",
                *flagged_lines(c.flagged, {}),
                "",
                *_model_block("Description", c.description),
            ]
    return []


def since_rejection_summary(changes: ChangesSinceRejection) -> str:
    """``since your rejection: 2 commits, 3 files`` (one line; the agent's WHAT HAPPENED)."""
    return f"since your rejection: {_change_counts(changes)}"


def since_rejection_lines(changes: ChangesSinceRejection) -> list[str]:
    """What changed since the rejected closure, as git counts it: commits, files, stat."""
    at = f"{_one(changes.checkpoint_id)} at {_one(changes.commit_sha[:12])}"
    out = [f"Since your rejection ({at}): {_change_counts(changes)}"]
    if changes.commits:
        out.append(f"  commits: {', '.join(_one(sha[:12]) for sha in changes.commits)}")
    if changes.files:
        out.append(f"  files: {', '.join(_one(name) for name in changes.files)}")
    if changes.shortstat:
        out.append(f"  {_one(changes.shortstat)}")
    return out


def _change_counts(changes: ChangesSinceRejection) -> str:
    if not changes.commits and not changes.files:
        return "no new commit, nothing changed"
    commits = f"{len(changes.commits)} commit" + ("" if len(changes.commits) == 1 else "s")
    files = f"{len(changes.files)} file" + ("" if len(changes.files) == 1 else "s")
    return f"{commits}, {files}"


def flagged_lines(flagged: list[FlaggedFile], choices: dict[str, str]) -> list[str]:
    """The outbound review's findings, file by file (a secret is never in them), with
    the start of each file as the model's words and the person's choice once made."""
    if not flagged:
        return []
    out = [f"FLAGGED by the outbound review ({len(flagged)} file(s); never auto-accepted):"]
    for item in flagged:
        chosen = f"  [{_one(choices[item.path])}]" if item.path in choices else ""
        out.append(f"  ⚑ {_one(item.path)}{chosen}")
        out += [
            f"      {_one(finding.kind.value)}: {_one(finding.reason)}" for finding in item.findings
        ]
        if item.preview:
            out += [f"      {line}" for line in marked_lines(item.preview)[:12]]
    return out


def _first_line(text: str) -> str:
    lines = text.splitlines()
    return lines[0] if lines else ""


def _box(approved: str, rejected: str) -> list[str]:
    def wrapped(text: str) -> list[str]:
        return textwrap.wrap(
            f"→ {_one(text)}", BOX_WIDTH - 4, initial_indent="   ", subsequent_indent="     "
        )

    inner = [" IF APPROVED:", *wrapped(approved), "", " IF REJECTED:", *wrapped(rejected)]
    top = "┌" + "─" * BOX_WIDTH + "┐"
    bottom = "└" + "─" * BOX_WIDTH + "┘"
    return [top, *(f"│{line[:BOX_WIDTH]:<{BOX_WIDTH}}│" for line in inner), bottom]

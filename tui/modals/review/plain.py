"""Review screens of the approve-or-reject checkpoints: everything the dialog had no room for.

Titles, file names, test output, the diff and the merge request are the model's (or
its programs'): each is escaped (:mod:`common.untrusted_text`) and shown as plain text
(``markup=False``), so nothing in it is read as markup or reaches the terminal raw.
"""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.widgets import Markdown, Static

from common.schemas.checkpoint import (
    IssueClosureCheckpoint,
    IssueRef,
    MrPhaseTransitionCheckpoint,
    MrReviewCheckpoint,
    ProjectVerificationCheckpoint,
    SpecToIssuesCheckpoint,
)
from common.schemas.gates import TestRun
from common.untrusted_text import printable, printable_line
from tui.modals.checkpoint_text import details
from tui.modals.review.base import ReviewScreen


def test_run_text(run: TestRun | None, heading: str = "Tests") -> str:
    """A test run: command, outcome, failing tests and the tail of its output."""
    if run is None:
        return f"{heading}: not run"
    verdict = "passed" if run.passed else f"FAILED (exit status {run.exit_code})"
    lines = [f"{heading}: {printable_line(run.summary)} — {verdict}"]
    lines.append(f"  $ {printable_line(run.command)}")
    lines += [f"  ✗ {printable_line(name)}" for name in run.failed_tests]
    if run.output_tail:  # what the project's tests printed: escaped, its lines kept
        lines += ["", printable(run.output_tail.rstrip())]
    return "\n".join(lines)


def issue_lines(issues: list[IssueRef]) -> str:
    """``#1 Title [label, label]`` per issue, or ``(none)``."""
    if not issues:
        return "  (none)"
    return "\n".join(
        f"  #{ref.iid} {printable_line(ref.title)}"
        + (f" [{printable_line(', '.join(ref.labels))}]" if ref.labels else "")
        for ref in issues
    )


class ProjectVerificationReview(ReviewScreen[ProjectVerificationCheckpoint]):
    """Every check the agent made before touching the project."""

    HEADING = "Project"

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static(test_run_text(context.baseline_tests, "Baseline tests"), markup=False)
        if context.uncommitted:
            changed = "\n".join(f"  {printable_line(path)}" for path in context.uncommitted)
            yield Static(f"Uncommitted changes:\n{changed}", markup=False)


class SpecToIssuesReview(ReviewScreen[SpecToIssuesCheckpoint]):
    """The proposed issues in full; a reject sends the feedback with the next attempt."""

    HEADING = "Proposed issues"

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        parts = [f"Attempt {context.attempt}. The issues are the model's words."]
        if context.feedback:
            parts.append(f"Feedback on the previous attempt: {printable_line(context.feedback)}")
        for position, issue in enumerate(context.issues, start=1):
            star = (
                " (recommended for enrichment)"
                if position in context.recommended_enrichment
                else ""
            )
            body = printable(issue.description()).replace("## ", "#### ")
            parts.append(f"### {position}. {printable_line(issue.title)}{star}\n\n{body}")
        yield Markdown("\n\n".join(parts), id="issues")


class IssueClosureReview(ReviewScreen[IssueClosureCheckpoint]):
    """The commit, its diff and the test results before the issue is closed."""

    HEADING = "Implementation"

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static(test_run_text(context.test_run), markup=False)
        stat = printable_line(context.diff_stat)
        yield Static(f"Diff ({stat}):", classes="heading", markup=False)
        diff = printable(context.diff)  # the model's files: no sequence reaches the terminal
        yield Static(Syntax(diff, "diff", theme="ansi_dark", word_wrap=False), id="diff")


class MrPhaseTransitionReview(ReviewScreen[MrPhaseTransitionCheckpoint]):
    """What is closed, what is still open, and the final test run."""

    HEADING = "Issues"

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield Static(f"Closed:\n{issue_lines(context.closed_issues)}", markup=False)
        yield Static(f"Still open:\n{issue_lines(context.open_issues)}", markup=False)
        yield Static(test_run_text(context.test_run, "Final tests"), markup=False)
        if context.skip_mr_creation:
            yield Static("skip_mr_creation is set: the run stops on the feature branch.")


class MrReviewReview(ReviewScreen[MrReviewCheckpoint]):
    """The merge request as it will be created: title, description, commits, tests."""

    HEADING = "Merge request"

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        branches = (
            f"{printable_line(context.source_branch)} → {printable_line(context.target_branch)}"
        )
        yield Static(f"{printable_line(context.title)}\n{branches}", markup=False)
        commits = "\n".join(f"  {printable_line(line)}" for line in context.commits) or "  (none)"
        yield Static(f"Commits:\n{commits}", markup=False)
        yield Static(test_run_text(context.test_run), markup=False)
        yield Static("Description (the model's words):", classes="heading", markup=False)
        yield Markdown(printable(context.description), id="description")

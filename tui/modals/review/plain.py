"""Review screens of the approve-or-reject checkpoints: everything the dialog had no room for.

Titles, file names, test output, the diff and the merge request are the model's (or
its programs'): each is escaped (:mod:`common.untrusted_text`) and shown as plain text
(``markup=False``), so nothing in it is read as markup or reaches the terminal raw.
"""

from __future__ import annotations

import re

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Markdown, SelectionList, Static
from textual.widgets.selection_list import Selection

from common import dependencies
from common.errors import CheckpointError
from common.schemas.checkpoint import (
    IssueClosureCheckpoint,
    IssueRef,
    MrPhaseTransitionCheckpoint,
    MrReviewCheckpoint,
    ProjectVerificationCheckpoint,
    SpecToIssuesCheckpoint,
)
from common.schemas.coverage import gaps_line
from common.schemas.gates import TestRun
from common.schemas.outbound import FlaggedFile
from common.schemas.quality import SETTINGS_FILE
from common.untrusted_text import printable, printable_line, printable_name
from tui.modals.checkpoint_text import details
from tui.modals.review.base import Draft, ReviewScreen
from tui.services.decide import Answer, build_decision
from tui.services.pending import Waiting

#: An issue number in the harness's words about dependencies (``#3``).
ISSUE_NUMBER = re.compile(r"#(\d+)")


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
    MODEL = ProjectVerificationCheckpoint

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static(test_run_text(context.baseline_tests, "Baseline tests"), markup=False)
        if context.uncommitted:
            changed = "\n".join(f"  {printable_line(path)}" for path in context.uncommitted)
            yield Static(f"Uncommitted changes:\n{changed}", markup=False)
        asked = [printable_line(server.summary()) for server in context.mcp_servers]
        if context.sandbox_hosts:
            asked.append(
                f"the sandbox may reach {printable_line(', '.join(context.sandbox_hosts))}"
            )
        if asked:  # the repository's file widens the sandbox: a person approves it
            lines = "\n".join(f"  {line}" for line in asked)
            yield Static(f"{SETTINGS_FILE} asks for:\n{lines}", markup=False)


class SpecToIssuesReview(ReviewScreen[SpecToIssuesCheckpoint]):
    """The proposed issues in full; a reject sends the feedback with the next attempt."""

    HEADING = "Proposed issues"
    MODEL = SpecToIssuesCheckpoint

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        parts = [f"Attempt {context.attempt}. The issues are the model's words."]
        if context.feedback:
            parts.append(f"Feedback on the previous attempt: {printable_line(context.feedback)}")
        graph = self.checkpoint.dependencies()
        for position, issue in enumerate(context.issues, start=1):
            star = (
                " (recommended for enrichment)"
                if position in context.recommended_enrichment
                else ""
            )
            body = printable(issue.description()).replace("## ", "#### ")
            if graph.get(position):
                body = f"**{dependencies.depends_text(graph[position]).capitalize()}**\n\n{body}"
            if context.spec_sections:
                body = f"Spec sections: {section_names(issue.spec_sections)}\n\n{body}"
            parts.append(f"### {position}. {printable_line(issue.title)}{star}\n\n{body}")
        if context.uncovered_sections:
            names = section_names(context.uncovered_sections)
            parts.insert(1, f"**Spec sections no issue covers:** {names}")
        yield Markdown("\n\n".join(parts), id="issues")
        if len(context.issues) > 1:
            yield Static(
                "Depends on (issue numbers, comma-separated; edit to change, empty for none):",
                classes="heading",
                markup=False,
            )
            for position, issue in enumerate(context.issues, start=1):
                with Horizontal(classes="depends-row"):
                    yield Static(f"{position}. {printable_line(issue.title)}", markup=False)
                    yield Input(
                        ", ".join(str(n) for n in graph.get(position, [])),
                        placeholder="none",
                        restrict=r"[0-9, #]*",
                        compact=True,
                        id=f"depends-{position}",
                    )
                yield Static("", id=f"depends-{position}-error", classes="field-error")

    def _edits(self) -> dict[int, list[str]]:
        """Each issue whose field differs from the proposal → the numbers typed there."""
        graph = self.checkpoint.dependencies()
        changed: dict[int, list[str]] = {}
        for field in self.query(".depends-row Input").results(Input):
            position = int((field.id or "0").removeprefix("depends-"))
            text = field.value.replace("#", "")
            numbers = [part.strip() for part in text.split(",") if part.strip()]
            if sorted(numbers) != sorted(str(n) for n in graph.get(position, [])):
                changed[position] = numbers
        return changed

    def choice(self) -> str | None:
        """``depends=…`` naming each issue whose field was changed (``None``: the
        proposal's dependencies as shown); the harness checks it like ``--choice``."""
        changed = [f"{position}:{','.join(numbers)}" for position, numbers in self._edits().items()]
        return f"depends={';'.join(changed)}" if changed else None

    def refused(self, problem: str) -> None:
        """Say why beside each field that causes it, and put the cursor in the first."""
        marked = field_problems(self.checkpoint, self._edits(), problem)
        for position, text in marked.items():
            line = self.query_one(f"#depends-{position}-error", Static)
            line.update(f"✗ {text}")
            line.add_class("-shown")
        if marked:
            self.query_one(f"#depends-{min(marked)}", Input).focus()
            fields = ", ".join(f"#{position}" for position in sorted(marked))
            problem = f"{problem} (fix the field of {fields}; nothing was decided)"
        super().refused(problem)

    @on(Input.Changed, ".depends-row Input")
    def depends_edited(self, event: Input.Changed) -> None:
        """An edited field's error goes: the next approve checks it again."""
        found = self.query(f"#{event.input.id}-error").results(Static)
        for line in found:
            line.update("")
            line.remove_class("-shown")


def field_problems(
    checkpoint: SpecToIssuesCheckpoint, edits: dict[int, list[str]], problem: str
) -> dict[int, str]:
    """Which edited fields cause ``problem`` (the harness's refusal of all the edits), and
    why each: a field refused on its own gets its own reason; an edit refused only with
    the others (a cycle through two edited fields) marks the edited issues ``problem``
    names, or every edited one."""
    alone: dict[int, str] = {}
    for position, numbers in edits.items():
        choice = f"depends={position}:{','.join(numbers)}"
        try:
            build_decision(checkpoint, Answer(approve=True, choice=choice))
        except CheckpointError as e:
            alone[position] = str(e)
    if alone:
        return alone
    named = {int(number) for number in ISSUE_NUMBER.findall(problem)}
    together = [position for position in edits if position in named] or list(edits)
    return dict.fromkeys(together, problem)


class IssueClosureReview(ReviewScreen[IssueClosureCheckpoint]):
    """The commit, its diff and the test results before the issue is closed; with files
    the outbound review held, a choice for each: ticked are committed (naming the person),
    the rest excluded. Nothing is ticked to begin with: approving is a person's act."""

    HEADING = ""  # the diff comes first, under its own DIFF heading
    MODEL = IssueClosureCheckpoint

    def compose_body(self) -> ComposeResult:
        """The flagged files to choose for (the answer) if any, then the diff first, then
        the details and the tests: the code is what the person approves."""
        context = self.checkpoint.context
        if context.flagged:
            yield Static(
                "Flagged files (space ticks: ticked are committed in your name, the rest "
                "are excluded and never committed):",
                classes="heading",
                markup=False,
            )
            yield SelectionList[str](
                *(
                    Selection(Content(flagged_label(item)), item.path, False)
                    for item in context.flagged
                ),
                id="flagged",
            )
        yield from self.diff_view()
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static(test_run_text(context.test_run), markup=False)

    def __init__(self, item: Waiting, subtitle: str = "", draft: Draft | None = None) -> None:
        super().__init__(item, subtitle, draft)
        self.FOCUS_REASON = not self.checkpoint.context.flagged  # the list first; Tab reaches it

    def on_mount(self) -> None:
        if self.checkpoint.context.flagged:
            self.query_one("#flagged", SelectionList).focus()

    def choice(self) -> str | None:
        """``approve=PATH`` for each ticked flagged file, the rest excluded (``None``:
        nothing was flagged, the plain approve)."""
        if not self.checkpoint.context.flagged:
            return None
        ticked = self.query_one("#flagged", SelectionList).selected
        return ";".join([*(f"approve={path}" for path in ticked), "exclude=*"])

    def approve_text(self) -> str:
        if self.checkpoint.context.flagged:
            return "Close: commit the ticked files, exclude the rest"
        return super().approve_text()


def section_names(names: list[str]) -> str:
    """Spec section names for Markdown: escaped, each in backticks (so never markup)."""
    return ", ".join(f"`{printable_line(name).replace('`', '')}`" for name in names) or "(none)"


def flagged_label(item: FlaggedFile) -> str:
    """One flagged file and why, on one line (escaped; no secret is in a finding)."""
    reasons = "; ".join(finding.reason for finding in item.findings)
    return f"{printable_name(item.path)} — {printable_line(reasons)}"


class MrPhaseTransitionReview(ReviewScreen[MrPhaseTransitionCheckpoint]):
    """What is closed, what is still open, and the final test run."""

    HEADING = "Issues"
    MODEL = MrPhaseTransitionCheckpoint

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield Static(f"Closed:\n{issue_lines(context.closed_issues)}", markup=False)
        yield Static(f"Still open:\n{issue_lines(context.open_issues)}", markup=False)
        yield Static(test_run_text(context.test_run, "Final tests"), markup=False)
        if context.coverage is not None and context.coverage.has_gaps:
            gaps = printable_line(gaps_line(context.coverage, []))
            yield Static(f"Partial: {gaps}", markup=False)
        if context.skip_mr_creation:
            yield Static("skip_mr_creation is set: the run stops on the feature branch.")


class MrReviewReview(ReviewScreen[MrReviewCheckpoint]):
    """The merge request as it will be created: title, description, commits, tests."""

    HEADING = "Merge request"
    MODEL = MrReviewCheckpoint

    def compose_body(self) -> ComposeResult:
        """Title and branches, then the diff (first, where it has one), then the rest."""
        context = self.checkpoint.context
        branches = (
            f"{printable_line(context.source_branch)} → {printable_line(context.target_branch)}"
        )
        yield Static(f"{printable_line(context.title)}\n{branches}", markup=False)
        yield from self.diff_view()
        commits = "\n".join(f"  {printable_line(line)}" for line in context.commits) or "  (none)"
        yield Static(f"Commits:\n{commits}", markup=False)
        if context.flagged:
            flagged = "\n".join(f"  ⚑ {flagged_label(item)}" for item in context.flagged)
            yield Static(
                "Flagged on the branch, approved by no one yet (approving the merge request "
                f"approves them, in your name):\n{flagged}",
                markup=False,
            )
        yield Static(test_run_text(context.test_run), markup=False)
        yield Static("Description (the model's words):", classes="heading", markup=False)
        yield Markdown(printable(context.description), id="description")

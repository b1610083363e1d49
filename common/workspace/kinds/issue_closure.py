"""issue_closure: the person reviews an issue's commit (its diff, tests, the model's
summary) before the issue is closed.

Files the outbound review flagged are never approved by default: each waits for a
person's ``approve=PATH`` or ``exclude=PATH``, and until then auto-accept leaves the
checkpoint pending. A reject sends the reason to the next session on the issue.
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    CheckpointType,
    ClosureDecision,
    Decision,
    IssueClosureCheckpoint,
)
from common.schemas.outbound import FileChoice
from common.workspace.kinds.base import CarriedDiff, KindRules
from common.workspace.kinds.lines import (
    first_line,
    flagged_lines,
    model_block,
    one,
    since_rejection_lines,
)
from common.workspace.kinds.lines import name as file_name

FILE_CHOICES = "approve=PATH or exclude=PATH, separated by ';' or new lines (PATH * for the rest)"


class IssueClosureKind(KindRules[IssueClosureCheckpoint]):
    checkpoint_type = CheckpointType.ISSUE_CLOSURE
    reason_use = "the next session on the issue reads this"
    asks_anyway = "asks if a change is flagged"

    def _waits_for_person(self, checkpoint: IssueClosureCheckpoint) -> list[str]:
        reasons = [f"flagged: {item.path}" for item in checkpoint.context.flagged]
        reasons += [f"the gates' tree: {line}" for line in checkpoint.context.gate_findings]
        return reasons + [item.reason for item in checkpoint.context.issue_findings]

    def _default(self, checkpoint: IssueClosureCheckpoint, decided_by: str) -> AnyDecision:
        if not checkpoint.context.flagged:
            return Decision(approved=True, decided_by=decided_by)
        waiting = {item.path: FileChoice.WAIT for item in checkpoint.context.flagged}
        return ClosureDecision(approved=True, decided_by=decided_by, files=waiting)

    def _choice(
        self, checkpoint: IssueClosureCheckpoint, choice: str, decided_by: str, reason: str | None
    ) -> AnyDecision:
        if not checkpoint.context.flagged:
            return super()._choice(checkpoint, choice, decided_by, reason)
        flagged = [item.path for item in checkpoint.context.flagged]
        files = file_choices(choice, flagged)
        return ClosureDecision(approved=True, decided_by=decided_by, reason=reason, files=files)

    def _approve_label(self, checkpoint: IssueClosureCheckpoint) -> str:
        if checkpoint.context.flagged:
            return "review (R): choose for each flagged file"
        return "approve"

    def _context_lines(self, checkpoint: IssueClosureCheckpoint) -> list[str]:
        c = checkpoint.context
        out = [
            f"Issue #{c.issue_iid}: {one(c.issue_title)}",
            f"Commit: {one(c.commit_sha[:12])} {one(first_line(c.commit_message))}",
            f"Files: {', '.join(file_name(path) for path in c.files_changed)}",
        ]
        if c.test_run is not None:
            out.append(f"Tests: {one(c.test_run.summary)}")
        for name, run in c.checks.items():
            verdict = "passes" if run.passed else "fails"
            out.append(f"Check {one(name)}: `{one(run.command)}` {verdict}")
        if c.model_summary:
            out += model_block("Summary", c.model_summary)
        for refusal in c.gate_refusals:
            out.append(
                f"Refused by the harness's test gate (session {refusal.session}): "
                f"{one(refusal.test_run.summary)}; "
                f"failing: {', '.join(one(name) for name in refusal.failing)}"
            )
            out += [f"  {line}" for line in model_block("The claim", refusal.claim)]
        out += [f"Not committed by the harness: {one(line)}" for line in c.kept_out]
        out += [f"Not a file git can see, in no diff: {one(line)}" for line in c.special_files]
        out += [f"⚠ The gates' tree (a person decides): {one(line)}" for line in c.gate_findings]
        out += [
            f"Written by a gate, ignored by the project: {one(line)}" for line in c.gate_ignored
        ]
        out += [f"Over the issue's budget: {one(item.reason)}" for item in c.issue_findings]
        out += [f"Screenshot (browser check): {one(path)}" for path in c.screenshots]
        if c.since_rejection is not None:
            out += since_rejection_lines(c.since_rejection)
        decision = checkpoint.decision
        choices = decision.files if isinstance(decision, ClosureDecision) else {}
        out += flagged_lines(c.flagged, {path: choice.value for path, choice in choices.items()})
        if c.flagged and decision is None:
            out.append(
                "  Choose for each: harness approve AGENT --choice "
                "'approve=PATH;exclude=PATH' (PATH * for the rest); reject sends it back"
            )
        return out

    def _diff(self, checkpoint: IssueClosureCheckpoint) -> CarriedDiff:
        c = checkpoint.context
        whole = f"git diff {c.diff_range}" if c.diff_range else f"git show {c.commit_sha}"
        return CarriedDiff(c.diff_stat, c.diff, c.diff_cut_at, whole, c.diff_long_lines)

    def _issue(self, checkpoint: IssueClosureCheckpoint) -> int:
        return checkpoint.context.issue_iid


def file_choices(choice: str, flagged: list[str]) -> dict[str, FileChoice]:
    """``approve=PATH`` / ``exclude=PATH`` items (``;`` or new lines between them) as a
    choice for every flagged file; ``PATH`` ``*`` stands for every file not named.

    Raises:
        CheckpointError: an unknown action or path, or a flagged file left without a choice.
    """
    chosen: dict[str, FileChoice] = {}
    rest: FileChoice | None = None
    for item in filter(None, (part.strip() for part in choice.replace("\n", ";").split(";"))):
        action, sep, path = item.partition("=")
        try:
            picked = FileChoice(action.strip())
        except ValueError as e:
            raise CheckpointError(f"unknown file choice {item!r}; give {FILE_CHOICES}") from e
        path = path.strip()
        if not sep or not path or picked is FileChoice.WAIT:
            raise CheckpointError(f"unknown file choice {item!r}; give {FILE_CHOICES}")
        if path == "*":
            rest = picked
        elif path in flagged:
            chosen[path] = picked
        else:
            raise CheckpointError(f"not a flagged file: {path!r}; flagged: {', '.join(flagged)}")
    for path in flagged:
        if path not in chosen and rest is not None:
            chosen[path] = rest
    missing = [path for path in flagged if path not in chosen]
    if missing:
        raise CheckpointError(f"no choice for: {', '.join(missing)}; give {FILE_CHOICES}")
    return chosen


KIND = IssueClosureKind(IssueClosureCheckpoint)

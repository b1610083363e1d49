"""Building decisions for a checkpoint: the defaults, a reject, an explicit choice.

Pure functions shared by the agent (auto-accept), the control CLI and the TUI,
so that "approve" means the same thing wherever it is pressed.
"""

from __future__ import annotations

from common import dependencies
from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    BudgetAction,
    BudgetDecision,
    BudgetReachedCheckpoint,
    Checkpoint,
    ClosureDecision,
    Decision,
    EnrichmentDecision,
    EnrichmentScopeCheckpoint,
    IssueClosureCheckpoint,
    IssueEnrichmentCheckpoint,
    IssueSelectionCheckpoint,
    MrReviewCheckpoint,
    ProposalDecision,
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionDecision,
    ScopeDecision,
    SelectionDecision,
    SpecToIssuesCheckpoint,
)
from common.schemas.outbound import FileChoice

_REGRESSION_ACTIONS = ", ".join(action.value for action in RegressionAction)
_BUDGET_CHOICES = "raise, raise:USD, raise:time=MIN, stop, merge_request"
_FILE_CHOICES = "approve=PATH or exclude=PATH, separated by ';' or new lines (PATH * for the rest)"
_DEPENDS_CHOICE = "depends=ISSUE:DEPENDENCIES;… with proposal positions, e.g. depends=3:1,2;4:"


def waits_for_person(checkpoint: Checkpoint) -> list[str]:
    """Why auto-accept must not answer ``checkpoint`` (empty: it may).

    A flagged change (the outbound review's findings) is never approved by default:
    the checkpoint stays pending, and a person is notified as for any pending one.
    """
    match checkpoint:
        case IssueClosureCheckpoint():
            reasons = [f"flagged: {item.path}" for item in checkpoint.context.flagged]
            return reasons + [item.reason for item in checkpoint.context.issue_findings]
        case MrReviewCheckpoint():
            return [f"flagged on the branch: {item.path}" for item in checkpoint.context.flagged]
        case _:
            return []


def default_decision(checkpoint: Checkpoint, decided_by: str) -> AnyDecision:
    """Approve with the checkpoint's default (what auto-accept and the Y key do).

    issue_enrichment takes the model's recommended selection, regression_approval
    takes ``fix_now``, issue_selection takes the recommended issue, budget_reached takes
    ``merge_request`` (nothing more is spent on new issues), enrichment_scope applies none
    of the enrichments (every issue keeps its spec-faithful text), issue_closure with flagged
    files ``wait`` for each (never approve: the decision cannot be recorded until a person
    chooses, see :func:`waits_for_person`); the rest approve.
    """
    match checkpoint:
        case BudgetReachedCheckpoint():
            return BudgetDecision(
                approved=True, decided_by=decided_by, action=BudgetAction.MERGE_REQUEST
            )
        case IssueEnrichmentCheckpoint():
            return EnrichmentDecision(
                approved=True, decided_by=decided_by, selected=list(checkpoint.context.recommended)
            )
        case EnrichmentScopeCheckpoint():
            return ScopeDecision(approved=True, decided_by=decided_by, selected=[])
        case RegressionApprovalCheckpoint():
            return RegressionDecision(
                approved=True, decided_by=decided_by, action=RegressionAction.FIX_NOW
            )
        case IssueSelectionCheckpoint():
            return SelectionDecision(
                approved=True,
                decided_by=decided_by,
                issue_iid=checkpoint.context.recommended_iid,
            )
        case IssueClosureCheckpoint() if checkpoint.context.flagged:
            waiting = {item.path: FileChoice.WAIT for item in checkpoint.context.flagged}
            return ClosureDecision(approved=True, decided_by=decided_by, files=waiting)
        case SpecToIssuesCheckpoint():
            return ProposalDecision(approved=True, decided_by=decided_by)
        case _:
            return Decision(approved=True, decided_by=decided_by)


def reject_decision(checkpoint: Checkpoint, decided_by: str, reason: str | None) -> AnyDecision:
    """A plain reject (the N key). regression_approval has none: it needs an explicit action.

    Raises:
        CheckpointError: for regression_approval.
    """
    match checkpoint:
        case RegressionApprovalCheckpoint():
            raise CheckpointError(
                f"regression_approval cannot be rejected; choose an action: {_REGRESSION_ACTIONS}"
            )
        case IssueEnrichmentCheckpoint():
            return EnrichmentDecision(
                approved=False, decided_by=decided_by, reason=reason, selected=[]
            )
        case EnrichmentScopeCheckpoint():
            return ScopeDecision(approved=False, decided_by=decided_by, reason=reason, selected=[])
        case IssueSelectionCheckpoint():
            return SelectionDecision(approved=False, decided_by=decided_by, reason=reason)
        case BudgetReachedCheckpoint():
            return BudgetDecision(
                approved=False, decided_by=decided_by, reason=reason, action=BudgetAction.STOP
            )
        case SpecToIssuesCheckpoint():
            return ProposalDecision(approved=False, decided_by=decided_by, reason=reason)
        case _:
            return Decision(approved=False, decided_by=decided_by, reason=reason)


def choice_decision(
    checkpoint: Checkpoint, choice: str, decided_by: str, reason: str | None = None
) -> AnyDecision:
    """Approve with an explicit, non-default choice given as text.

    issue_enrichment: comma-separated iids (empty for none); enrichment_scope: the
    comma-separated iids whose enrichment to apply (empty for none); issue_selection: one iid;
    regression_approval: an action name; budget_reached: ``raise`` (doubles the reached
    budget), ``raise:USD``, ``raise:time=MIN``, ``stop`` or ``merge_request``;
    issue_closure: a choice per flagged file (:func:`file_choices`); spec_to_issues:
    ``depends=3:1,2;4:`` (:func:`dependency_edits`). Other checkpoints take no choice.

    Raises:
        CheckpointError: the choice does not fit the checkpoint.
    """
    match checkpoint:
        case IssueEnrichmentCheckpoint():
            known = {issue.iid for issue in checkpoint.context.issues}
            selected = _parse_iids(choice)
            unknown = sorted(set(selected) - known)
            if unknown:
                raise CheckpointError(f"no such issue to enrich: {unknown}; known: {sorted(known)}")
            return EnrichmentDecision(
                approved=True, decided_by=decided_by, reason=reason, selected=selected
            )
        case EnrichmentScopeCheckpoint():
            listed = {change.iid for change in checkpoint.context.changes}
            selected = _parse_iids(choice)
            unknown = sorted(set(selected) - listed)
            if unknown:
                raise CheckpointError(
                    f"no enrichment of issue {unknown} to apply; listed: {sorted(listed)}"
                )
            return ScopeDecision(
                approved=True, decided_by=decided_by, reason=reason, selected=selected
            )
        case IssueSelectionCheckpoint():
            iids = _parse_iids(choice)
            known = {issue.iid for issue in checkpoint.context.open_issues}
            waiting = {item.iid: item.waiting_for for item in checkpoint.context.blocked}
            if len(iids) == 1 and iids[0] in waiting:
                needs = ", ".join(f"#{iid}" for iid in waiting[iids[0]])
                raise CheckpointError(
                    f"issue #{iids[0]} waits for {needs}; choose one that may start now: "
                    + ", ".join(str(i) for i in sorted(known))
                )
            if len(iids) != 1 or iids[0] not in known:
                raise CheckpointError(
                    f"choose one open issue: {', '.join(str(i) for i in sorted(known))}"
                )
            return SelectionDecision(
                approved=True, decided_by=decided_by, reason=reason, issue_iid=iids[0]
            )
        case RegressionApprovalCheckpoint():
            try:
                action = RegressionAction(choice.strip())
            except ValueError as e:
                raise CheckpointError(
                    f"unknown regression action {choice!r}; choose: {_REGRESSION_ACTIONS}"
                ) from e
            return RegressionDecision(
                approved=True, decided_by=decided_by, reason=reason, action=action
            )
        case BudgetReachedCheckpoint():
            return _budget_choice(choice, decided_by, reason)
        case IssueClosureCheckpoint() if checkpoint.context.flagged:
            flagged = [item.path for item in checkpoint.context.flagged]
            files = file_choices(choice, flagged)
            return ClosureDecision(approved=True, decided_by=decided_by, reason=reason, files=files)
        case SpecToIssuesCheckpoint():
            edits = dependency_edits(checkpoint, choice)
            return ProposalDecision(
                approved=True, decided_by=decided_by, reason=reason, depends_on=edits
            )
        case _:
            raise CheckpointError(f"{checkpoint.type.value} takes no choice; approve or reject it")


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
            raise CheckpointError(f"unknown file choice {item!r}; give {_FILE_CHOICES}") from e
        path = path.strip()
        if not sep or not path or picked is FileChoice.WAIT:
            raise CheckpointError(f"unknown file choice {item!r}; give {_FILE_CHOICES}")
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
        raise CheckpointError(f"no choice for: {', '.join(missing)}; give {_FILE_CHOICES}")
    return chosen


def dependency_edits(checkpoint: SpecToIssuesCheckpoint, choice: str) -> dict[int, list[int]]:
    """``depends=3:1,2;4:`` as the person's edits of the proposal's dependencies: issue 3
    depends on 1 and 2, issue 4 on none, the others as proposed (``depends=`` alone: none
    changed). Positions are the proposal's 1-based numbers, as every view shows them.

    Raises:
        CheckpointError: not ``depends=…``, an unknown position, a self-dependency, or a
            cycle (one line naming it: ``dependency cycle: #2 → #3 → #2``); nothing changes.
    """
    name, sep, rest = choice.strip().partition("=")
    if not sep or name.strip() != "depends":
        raise CheckpointError(f"spec_to_issues takes {_DEPENDS_CHOICE}; got {choice!r}")
    try:
        edits = dependencies.parse_edits(rest)
    except ValueError as e:
        raise CheckpointError(f"{e}; give {_DEPENDS_CHOICE}") from e
    proposed = dependencies.positions([issue.depends_on for issue in checkpoint.context.issues])
    known = range(1, len(checkpoint.context.issues) + 1)
    problem = dependencies.graph_problem(dependencies.edited(proposed, edits), known)
    if problem is not None:
        raise CheckpointError(problem)
    return edits


def _budget_choice(choice: str, decided_by: str, reason: str | None) -> BudgetDecision:
    """``raise[:USD|:cost=USD,time=MIN]``, ``stop`` or ``merge_request``."""
    name, _, limits = choice.strip().partition(":")
    try:
        action = BudgetAction(name.strip())
    except ValueError as e:
        raise CheckpointError(f"unknown budget action {choice!r}; choose: {_BUDGET_CHOICES}") from e
    if limits and action is not BudgetAction.RAISE:
        raise CheckpointError(f"only raise takes limits; choose: {_BUDGET_CHOICES}")
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in limits.split(","))):
        key, sep, number = part.partition("=")
        key, number = ("cost", key) if not sep else (key.strip(), number)
        if key not in ("cost", "time"):
            raise CheckpointError(f"unknown budget {key!r}; name cost=USD or time=MIN")
        try:
            values[key] = float(number)
        except ValueError as e:
            raise CheckpointError(f"expected a number for {key}, got {number!r}") from e
        if values[key] <= 0:
            raise CheckpointError(f"a {key} budget must be more than 0")
    return BudgetDecision(
        approved=action is not BudgetAction.STOP,
        decided_by=decided_by,
        reason=reason,
        action=action,
        cost_usd=values.get("cost"),
        wall_time_min=values.get("time"),
    )


def _parse_iids(text: str) -> list[int]:
    parts = [part.strip().lstrip("#") for part in text.split(",") if part.strip()]
    try:
        return [int(part) for part in parts]
    except ValueError as e:
        raise CheckpointError(f"expected issue numbers like 1,3 — got {text!r}") from e

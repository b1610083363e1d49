"""Building decisions for a checkpoint: the defaults, a reject, an explicit choice.

Pure functions shared by the agent (auto-accept), the control CLI and the TUI,
so that "approve" means the same thing wherever it is pressed.
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
    BudgetAction,
    BudgetDecision,
    BudgetReachedCheckpoint,
    Checkpoint,
    Decision,
    EnrichmentDecision,
    IssueEnrichmentCheckpoint,
    IssueSelectionCheckpoint,
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionDecision,
    SelectionDecision,
)

_REGRESSION_ACTIONS = ", ".join(action.value for action in RegressionAction)
_BUDGET_CHOICES = "raise, raise:USD, raise:time=MIN, stop, merge_request"


def default_decision(checkpoint: Checkpoint, decided_by: str) -> AnyDecision:
    """Approve with the checkpoint's default (what auto-accept and the Y key do).

    issue_enrichment takes the model's recommended selection, regression_approval
    takes ``fix_now``, issue_selection takes the recommended issue, budget_reached takes
    ``merge_request`` (nothing more is spent on new issues); the rest approve.
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
        case IssueSelectionCheckpoint():
            return SelectionDecision(approved=False, decided_by=decided_by, reason=reason)
        case BudgetReachedCheckpoint():
            return BudgetDecision(
                approved=False, decided_by=decided_by, reason=reason, action=BudgetAction.STOP
            )
        case _:
            return Decision(approved=False, decided_by=decided_by, reason=reason)


def choice_decision(
    checkpoint: Checkpoint, choice: str, decided_by: str, reason: str | None = None
) -> AnyDecision:
    """Approve with an explicit, non-default choice given as text.

    issue_enrichment: comma-separated iids (empty for none); issue_selection: one iid;
    regression_approval: an action name; budget_reached: ``raise`` (doubles the reached
    budget), ``raise:USD``, ``raise:time=MIN``, ``stop`` or ``merge_request``. Other
    checkpoints take no choice.

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
        case IssueSelectionCheckpoint():
            iids = _parse_iids(choice)
            known = {issue.iid for issue in checkpoint.context.open_issues}
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
        case _:
            raise CheckpointError(f"{checkpoint.type.value} takes no choice; approve or reject it")


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

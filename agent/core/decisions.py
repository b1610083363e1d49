"""Building decisions for a checkpoint: the defaults, a reject, an explicit choice.

Pure functions shared by the agent (auto-accept), the control CLI and the TUI,
so that "approve" means the same thing wherever it is pressed.
"""

from __future__ import annotations

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    AnyDecision,
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


def default_decision(checkpoint: Checkpoint, decided_by: str) -> AnyDecision:
    """Approve with the checkpoint's default (what auto-accept and the Y key do).

    issue_enrichment takes the model's recommended selection, regression_approval
    takes ``fix_now``, issue_selection takes the recommended issue; the rest approve.
    """
    match checkpoint:
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
        case _:
            return Decision(approved=False, decided_by=decided_by, reason=reason)


def choice_decision(
    checkpoint: Checkpoint, choice: str, decided_by: str, reason: str | None = None
) -> AnyDecision:
    """Approve with an explicit, non-default choice given as text.

    issue_enrichment: comma-separated iids (empty for none); issue_selection: one iid;
    regression_approval: an action name. Other checkpoints take no choice.

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
        case _:
            raise CheckpointError(f"{checkpoint.type.value} takes no choice; approve or reject it")


def _parse_iids(text: str) -> list[int]:
    parts = [part.strip().lstrip("#") for part in text.split(",") if part.strip()]
    try:
        return [int(part) for part in parts]
    except ValueError as e:
        raise CheckpointError(f"expected issue numbers like 1,3 — got {text!r}") from e

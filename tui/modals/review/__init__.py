"""The full review screen (R) of each checkpoint type."""

from __future__ import annotations

from textual.screen import ModalScreen

from common.schemas.checkpoint import (
    BudgetReachedCheckpoint,
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
from tui.modals.review.base import ReviewScreen
from tui.modals.review.choices import (
    BudgetReachedReview,
    IssueEnrichmentReview,
    IssueSelectionReview,
    RegressionApprovalReview,
)
from tui.modals.review.plain import (
    IssueClosureReview,
    MrPhaseTransitionReview,
    MrReviewReview,
    ProjectVerificationReview,
    SpecToIssuesReview,
)
from tui.modals.review.scope import EnrichmentScopeReview
from tui.services.decide import Answer
from tui.services.pending import Waiting

__all__ = ["ReviewScreen", "review_for"]


def review_for(item: Waiting, subtitle: str = "") -> ModalScreen[Answer | None]:
    """The review screen for ``item``'s checkpoint type."""
    checkpoint = item.checkpoint
    match checkpoint:
        case ProjectVerificationCheckpoint():
            return ProjectVerificationReview(item, checkpoint, subtitle)
        case SpecToIssuesCheckpoint():
            return SpecToIssuesReview(item, checkpoint, subtitle)
        case IssueEnrichmentCheckpoint():
            return IssueEnrichmentReview(item, checkpoint, subtitle)
        case RegressionApprovalCheckpoint():
            return RegressionApprovalReview(item, checkpoint, subtitle)
        case IssueSelectionCheckpoint():
            return IssueSelectionReview(item, checkpoint, subtitle)
        case IssueClosureCheckpoint():
            return IssueClosureReview(item, checkpoint, subtitle)
        case MrPhaseTransitionCheckpoint():
            return MrPhaseTransitionReview(item, checkpoint, subtitle)
        case MrReviewCheckpoint():
            return MrReviewReview(item, checkpoint, subtitle)
        case BudgetReachedCheckpoint():
            return BudgetReachedReview(item, checkpoint, subtitle)
        case EnrichmentScopeCheckpoint():
            return EnrichmentScopeReview(item, checkpoint, subtitle)

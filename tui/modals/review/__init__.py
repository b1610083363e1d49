"""The full review screen (R) of each checkpoint type, in one registry.

The type's rules that are not the TUI's (its labels, what a reject means, its diff)
live in :mod:`common.workspace.kinds`; here is only which screen shows it. A new
checkpoint type is one screen and one line in :data:`REVIEWS` (a test holds every type
to exactly one entry).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.screen import ModalScreen

from common.schemas.checkpoint_type import CheckpointType
from tui.modals.review.base import ReviewScreen
from tui.modals.review.choices import (
    BudgetReachedReview,
    IssueEnrichmentReview,
    IssueSelectionReview,
    MergeConflictReview,
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

__all__ = ["REVIEWS", "ReviewScreen", "review_for"]

ReviewFactory = Callable[[Waiting, str], ModalScreen[Answer | None]]
"""A review screen's class: built from the waiting checkpoint and who waits."""

REVIEWS: dict[CheckpointType, ReviewFactory] = {
    CheckpointType.PROJECT_VERIFICATION: ProjectVerificationReview,
    CheckpointType.SPEC_TO_ISSUES: SpecToIssuesReview,
    CheckpointType.ISSUE_ENRICHMENT: IssueEnrichmentReview,
    CheckpointType.REGRESSION_APPROVAL: RegressionApprovalReview,
    CheckpointType.ISSUE_SELECTION: IssueSelectionReview,
    CheckpointType.ISSUE_CLOSURE: IssueClosureReview,
    CheckpointType.MR_PHASE_TRANSITION: MrPhaseTransitionReview,
    CheckpointType.MR_REVIEW: MrReviewReview,
    CheckpointType.BUDGET_REACHED: BudgetReachedReview,
    CheckpointType.ENRICHMENT_SCOPE: EnrichmentScopeReview,
    CheckpointType.MERGE_CONFLICT: MergeConflictReview,
}
"""Each checkpoint type's review screen."""


def review_for(item: Waiting, subtitle: str = "") -> ModalScreen[Answer | None]:
    """The review screen for ``item``'s checkpoint type."""
    return REVIEWS[item.checkpoint.type](item, subtitle)

"""The full review screen (R) of each checkpoint type, in one registry.

The type's rules that are not the TUI's (its labels, what a reject means, its diff)
live in :mod:`common.workspace.kinds`; here is only which screen shows it. A new
checkpoint type is one screen and one line in :data:`REVIEWS` (a test holds every type
to exactly one entry).
"""

from __future__ import annotations

from typing import Protocol

from textual.screen import ModalScreen

from common.schemas.checkpoint_type import CheckpointType
from tui.modals.review.base import Draft, ReviewScreen
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

__all__ = ["REVIEWS", "Draft", "ReviewScreen", "review_for"]


class ReviewFactory(Protocol):
    """A review screen's class: built from the waiting checkpoint, who waits, and what was
    typed the last time it was open."""

    def __call__(
        self, item: Waiting, subtitle: str = "", draft: Draft | None = None
    ) -> ModalScreen[Answer | None]: ...


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


def review_for(
    item: Waiting, subtitle: str = "", draft: Draft | None = None
) -> ModalScreen[Answer | None]:
    """The review screen for ``item``'s checkpoint type (its fields start with ``draft``,
    and keep what is typed in it)."""
    return REVIEWS[item.checkpoint.type](item, subtitle, draft)

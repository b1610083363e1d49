"""``.hitl_checkpoint.json`` and ``.hitl_checkpoint_log.json``: the checkpoints.

Each checkpoint type has its own context (what the human needs to see) and its
own decision (what the human can choose). The union is discriminated by ``type``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, RootModel, TypeAdapter

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision, DiffExcerpt, IssueRef
from common.schemas.checkpoint.budget_reached import (
    BudgetAction,
    BudgetDecision,
    BudgetReachedCheckpoint,
    BudgetReachedContext,
)
from common.schemas.checkpoint.enrichment_scope import (
    EnrichmentScopeCheckpoint,
    EnrichmentScopeContext,
    ScopeChange,
    ScopeDecision,
)
from common.schemas.checkpoint.issue_closure import (
    ChangesSinceRejection,
    ClosureDecision,
    IssueClosureCheckpoint,
    IssueClosureContext,
)
from common.schemas.checkpoint.issue_enrichment import (
    EnrichmentDecision,
    IssueEnrichmentCheckpoint,
    IssueEnrichmentContext,
)
from common.schemas.checkpoint.issue_selection import (
    BlockedIssue,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    SelectionDecision,
)
from common.schemas.checkpoint.merge_conflict import (
    MergeConflictAction,
    MergeConflictCheckpoint,
    MergeConflictContext,
    MergeConflictDecision,
)
from common.schemas.checkpoint.mr_phase_transition import (
    MrPhaseTransitionCheckpoint,
    MrPhaseTransitionContext,
)
from common.schemas.checkpoint.mr_review import MrReviewCheckpoint, MrReviewContext
from common.schemas.checkpoint.project_verification import (
    ProjectVerificationCheckpoint,
    ProjectVerificationContext,
)
from common.schemas.checkpoint.regression_approval import (
    RegressionAction,
    RegressionApprovalCheckpoint,
    RegressionApprovalContext,
    RegressionDecision,
)
from common.schemas.checkpoint.spec_to_issues import (
    ProposalDecision,
    SpecToIssuesCheckpoint,
    SpecToIssuesContext,
)
from common.schemas.checkpoint_type import CheckpointType

__all__ = [
    "AnyDecision",
    "BlockedIssue",
    "BudgetAction",
    "BudgetDecision",
    "BudgetReachedCheckpoint",
    "BudgetReachedContext",
    "ChangesSinceRejection",
    "Checkpoint",
    "CheckpointAdapter",
    "CheckpointBase",
    "CheckpointFile",
    "CheckpointLog",
    "CheckpointType",
    "ClosureDecision",
    "Decision",
    "DiffExcerpt",
    "EnrichmentDecision",
    "EnrichmentScopeCheckpoint",
    "EnrichmentScopeContext",
    "IssueClosureCheckpoint",
    "IssueClosureContext",
    "IssueEnrichmentCheckpoint",
    "IssueEnrichmentContext",
    "IssueRef",
    "IssueSelectionCheckpoint",
    "IssueSelectionContext",
    "MergeConflictAction",
    "MergeConflictCheckpoint",
    "MergeConflictContext",
    "MergeConflictDecision",
    "MrPhaseTransitionCheckpoint",
    "MrPhaseTransitionContext",
    "MrReviewCheckpoint",
    "MrReviewContext",
    "ProjectVerificationCheckpoint",
    "ProjectVerificationContext",
    "ProposalDecision",
    "RegressionAction",
    "RegressionApprovalCheckpoint",
    "RegressionApprovalContext",
    "RegressionDecision",
    "ScopeChange",
    "ScopeDecision",
    "SelectionDecision",
    "SpecToIssuesCheckpoint",
    "SpecToIssuesContext",
]

Checkpoint = Annotated[
    ProjectVerificationCheckpoint
    | SpecToIssuesCheckpoint
    | IssueEnrichmentCheckpoint
    | RegressionApprovalCheckpoint
    | IssueSelectionCheckpoint
    | IssueClosureCheckpoint
    | MrPhaseTransitionCheckpoint
    | MrReviewCheckpoint
    | BudgetReachedCheckpoint
    | EnrichmentScopeCheckpoint
    | MergeConflictCheckpoint,
    Field(discriminator="type"),
]
"""Any one of the checkpoints."""

AnyDecision = (
    Decision
    | EnrichmentDecision
    | SelectionDecision
    | RegressionDecision
    | BudgetDecision
    | ClosureDecision
    | ScopeDecision
    | ProposalDecision
    | MergeConflictDecision
)

CheckpointAdapter: TypeAdapter[Checkpoint] = TypeAdapter(Checkpoint)


class CheckpointFile(RootModel[Checkpoint]):
    """``.hitl_checkpoint.json``: the current checkpoint, pending or decided."""


class CheckpointLog(StrictModel):
    """``.hitl_checkpoint_log.json``: every decided checkpoint, oldest first."""

    schema_version: Literal[1] = 1
    entries: list[Checkpoint] = Field(default_factory=list)

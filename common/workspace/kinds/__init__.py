"""Each checkpoint type's rules in one module, and the registry that finds them.

A module per type (``issue_closure.py`` …) holds everything that differs by type:
its default decision (what auto-accept answers) and whether a person must answer,
how a ``--choice`` reads, its reject and who reads a reject's reason, its labels,
its lines in ``harness checkpoint`` and the diff it carries
(:class:`~common.workspace.kinds.base.CheckpointKind`). The generic code looks the
type up here, so a new checkpoint type is one new module and one line in :data:`KINDS`
(a test holds every type to exactly one entry).
"""

from __future__ import annotations

from common.schemas.checkpoint import Checkpoint, CheckpointType
from common.workspace.kinds import (
    budget_reached,
    enrichment_scope,
    issue_closure,
    issue_enrichment,
    issue_selection,
    merge_conflict,
    mr_phase_transition,
    mr_review,
    project_verification,
    regression_approval,
    spec_to_issues,
)
from common.workspace.kinds.base import CheckpointKind

KINDS: dict[CheckpointType, CheckpointKind] = {
    CheckpointType.PROJECT_VERIFICATION: project_verification.KIND,
    CheckpointType.SPEC_TO_ISSUES: spec_to_issues.KIND,
    CheckpointType.ISSUE_ENRICHMENT: issue_enrichment.KIND,
    CheckpointType.REGRESSION_APPROVAL: regression_approval.KIND,
    CheckpointType.ISSUE_SELECTION: issue_selection.KIND,
    CheckpointType.ISSUE_CLOSURE: issue_closure.KIND,
    CheckpointType.MR_PHASE_TRANSITION: mr_phase_transition.KIND,
    CheckpointType.MR_REVIEW: mr_review.KIND,
    CheckpointType.BUDGET_REACHED: budget_reached.KIND,
    CheckpointType.ENRICHMENT_SCOPE: enrichment_scope.KIND,
    CheckpointType.MERGE_CONFLICT: merge_conflict.KIND,
}
"""Every checkpoint type's rules, by type."""


def kind_of(checkpoint: Checkpoint) -> CheckpointKind:
    """The rules of ``checkpoint``'s type."""
    return KINDS[checkpoint.type]

"""The checkpoint types: its own small module, so the spec's auto-accept rules and the
front ends' first screens name a type without building every checkpoint schema."""

from __future__ import annotations

from enum import StrEnum


class CheckpointType(StrEnum):
    """The points where a human (or auto-accept) decides: the seed's eight, a budget, an
    enrichment that changed an issue's scope, and an issue's branch that conflicts again."""

    PROJECT_VERIFICATION = "project_verification"
    SPEC_TO_ISSUES = "spec_to_issues"
    ISSUE_ENRICHMENT = "issue_enrichment"
    REGRESSION_APPROVAL = "regression_approval"
    ISSUE_SELECTION = "issue_selection"
    ISSUE_CLOSURE = "issue_closure"
    MR_PHASE_TRANSITION = "mr_phase_transition"
    MR_REVIEW = "mr_review"
    BUDGET_REACHED = "budget_reached"
    ENRICHMENT_SCOPE = "enrichment_scope"
    MERGE_CONFLICT = "merge_conflict"

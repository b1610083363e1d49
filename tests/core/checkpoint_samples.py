"""Small pending checkpoints of every type, for the decision and checkpoint-file tests."""

from __future__ import annotations

from typing import Any

from common.schemas.budget import Budgets
from common.schemas.checkpoint import (
    BudgetReachedCheckpoint,
    BudgetReachedContext,
    Checkpoint,
    CheckpointType,
    DiffExcerpt,
    EnrichmentScopeCheckpoint,
    EnrichmentScopeContext,
    IssueClosureCheckpoint,
    IssueClosureContext,
    IssueEnrichmentCheckpoint,
    IssueEnrichmentContext,
    IssueRef,
    IssueSelectionCheckpoint,
    IssueSelectionContext,
    MergeConflictAction,
    MergeConflictCheckpoint,
    MergeConflictContext,
    MrPhaseTransitionCheckpoint,
    MrPhaseTransitionContext,
    MrReviewCheckpoint,
    MrReviewContext,
    ProjectVerificationCheckpoint,
    ProjectVerificationContext,
    RegressionApprovalCheckpoint,
    RegressionApprovalContext,
    ScopeChange,
    SpecToIssuesCheckpoint,
    SpecToIssuesContext,
)
from common.schemas.coverage import SpecCoverage
from common.schemas.gates import TestRun
from common.schemas.issues import IssueDraft
from common.schemas.spend import Spend

ISSUES = [
    IssueRef(iid=1, title="Parser"),
    IssueRef(iid=2, title="CLI"),
    IssueRef(iid=3, title="Docs"),
]
FAILING_RUN = TestRun(
    command="pytest", exit_code=1, duration_s=0.1, summary="1 failed", failed_tests=["t.py::a"]
)


def _text(checkpoint_id: str) -> dict[str, Any]:
    return {
        "id": checkpoint_id,
        "what_happened": ["Something happened."],
        "to_decide": "Go on?",
        "if_approved": "It goes on.",
        "if_rejected": "It stops.",
    }


def enrichment(checkpoint_id: str = "ie-1", recommended: tuple[int, ...] = (1, 3)) -> Checkpoint:
    return IssueEnrichmentCheckpoint(
        **_text(checkpoint_id),
        context=IssueEnrichmentContext(issues=ISSUES, recommended=list(recommended)),
    )


def selection(checkpoint_id: str = "is-1", recommended_iid: int = 2) -> Checkpoint:
    return IssueSelectionCheckpoint(
        **_text(checkpoint_id),
        context=IssueSelectionContext(
            open_issues=ISSUES[:2], recommended_iid=recommended_iid, closed_count=1
        ),
    )


def regression(checkpoint_id: str = "ra-1") -> Checkpoint:
    return RegressionApprovalCheckpoint(
        **_text(checkpoint_id),
        context=RegressionApprovalContext(
            issue_iid=1, issue_title="Parser", newly_failing=["t.py::a"], test_run=FAILING_RUN
        ),
    )


def project_verification(checkpoint_id: str = "pv-1") -> Checkpoint:
    return ProjectVerificationCheckpoint(
        **_text(checkpoint_id),
        context=ProjectVerificationContext(
            project_dir="/srv/p",
            current_branch="main",
            target_branch="main",
            feature_branch="feature/p",
            head_commit="0" * 40,
            tracker="file",
            test_command="pytest",
        ),
    )


def spec_to_issues(checkpoint_id: str = "si-1") -> Checkpoint:
    return SpecToIssuesCheckpoint(
        **_text(checkpoint_id),
        context=SpecToIssuesContext(
            issues=[IssueDraft(title="Parser", summary="Parse.", spec_sections=["Parsing"])],
            spec_sections=["Parsing", "Output"],
            uncovered_sections=["Output"],
        ),
    )


def closure(checkpoint_id: str = "ic-1") -> Checkpoint:
    return IssueClosureCheckpoint(
        **_text(checkpoint_id),
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="Parser",
            commit_sha="a" * 40,
            commit_message="feat(#1): Parser",
            files_changed=["parser.py"],
            diff_stat="1 file changed",
            diff="+x",
        ),
    )


def mr_transition(checkpoint_id: str = "mp-1") -> Checkpoint:
    return MrPhaseTransitionCheckpoint(
        **_text(checkpoint_id),
        context=MrPhaseTransitionContext(
            closed_issues=ISSUES,
            open_issues=[],
            coverage=SpecCoverage(sections=["Parsing", "Output"], uncovered=["Output"]),
        ),
    )


def mr_review(checkpoint_id: str = "mr-1") -> Checkpoint:
    return MrReviewCheckpoint(
        **_text(checkpoint_id),
        context=MrReviewContext(
            title="T",
            description="D",
            source_branch="feature/p",
            target_branch="main",
            commits=["a" * 40],
        ),
    )


def budget(checkpoint_id: str = "br-1") -> Checkpoint:
    spend = Spend(tokens_in=1000, tokens_out=100, cost_usd=1.25, sessions=3, session_s=60)
    return BudgetReachedCheckpoint(
        **_text(checkpoint_id),
        context=BudgetReachedContext(
            reached=["cost: $1.2500 of $1.0000"],
            spend=spend,
            issue_spend={1: spend},
            budgets=Budgets(cost_usd=1.0),
            current_issue=2,
        ),
    )


def scope(checkpoint_id: str = "es-1") -> Checkpoint:
    """Two enrichments held for changing their issue's scope (#2 and #3)."""
    changes = [
        ScopeChange(
            iid=iid,
            spec_title=title,
            enriched_title="Parser",
            dropped=[f"title: {title!r} became 'Parser'"],
            diff=f"diff --git a/issue-{iid}.md b/issue-{iid}.md\n-# {title}\n+# Parser",
        )
        for iid, title in ((2, "CLI"), (3, "Docs"))
    ]
    return EnrichmentScopeCheckpoint(
        **_text(checkpoint_id), context=EnrichmentScopeContext(changes=changes)
    )


def conflict(
    checkpoint_id: str = "mc-1", actions: list[MergeConflictAction] | None = None
) -> Checkpoint:
    """Issue #2's branch conflicting again in one file."""
    return MergeConflictCheckpoint(
        **_text(checkpoint_id),
        context=MergeConflictContext(
            issue_iid=2,
            issue_title="CLI",
            branch="feature/p-issue-2",
            feature_branch="feature/p",
            worktree="/srv/w/issue-2",
            conflicts=["cli.py"],
            conflicts_so_far=2,
            diff=DiffExcerpt(
                stat=" cli.py | 2 +-",
                text="diff --cc cli.py\n--- a/cli.py\n+++ b/cli.py\n"
                "++<<<<<<< HEAD\n+ a\n++=======\n+ b",
                range="feature/p...feature/p-issue-2",
            ),
            **({"actions": actions} if actions is not None else {}),
        ),
    )


def every_type() -> list[Checkpoint]:
    samples = [
        project_verification(),
        spec_to_issues(),
        enrichment(),
        regression(),
        selection(),
        closure(),
        mr_transition(),
        mr_review(),
        budget(),
        scope(),
        conflict(),
    ]
    assert {sample.type for sample in samples} == set(CheckpointType)
    return samples


#: The checkpoint types whose decision is a plain approve/reject.
PLAIN = [project_verification, closure, mr_transition, mr_review]

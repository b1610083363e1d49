"""Fixed checkpoints of every type, built from the schemas, for dialogs and snapshots.

Timestamps are fixed and no temporary path appears in them, so a snapshot is
the same on every machine.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent.core.words.scope_change import scope_diff
from common.schemas.budget import Budgets
from common.schemas.checkpoint import (
    BlockedIssue,
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
from common.schemas.gates import TestRun
from common.schemas.issues import IssueDraft
from common.schemas.spend import Spend

T0 = datetime(2026, 1, 15, 9, 30, tzinfo=UTC)

ISSUES = [
    IssueRef(iid=1, title="Add slugify"),
    IssueRef(iid=2, title="Add word_count"),
    IssueRef(iid=3, title="Add truncate"),
]
PASSING = TestRun(command="python -m pytest -q", exit_code=0, duration_s=0.4, summary="5 passed")
FAILING = TestRun(
    command="python -m pytest -q",
    exit_code=1,
    duration_s=0.5,
    summary="1 failed, 4 passed",
    failed_tests=["tests/test_normalize.py::test_collapses_tabs"],
    output_tail="E   AssertionError: assert 'a\\tb' == 'a b'",
)


def _at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def project_verification(checkpoint_id: str = "project_verification-0") -> Checkpoint:
    return ProjectVerificationCheckpoint(
        id=checkpoint_id,
        created_at=_at(0),
        what_happened=[
            "textkit is a git repository; target branch main exists",
            "issue tracker (file) is reachable",
            "baseline test run: 5 passed",
        ],
        to_decide="Start work on this project with this configuration?",
        if_approved="The specification is broken into issues",
        if_rejected="The run ends; nothing is created",
        context=ProjectVerificationContext(
            project_dir="~/projects/textkit",
            current_branch="main",
            target_branch="main",
            feature_branch="feature/textkit-helpers",
            head_commit="0e3b0f615d69a1b2c3d4e5f60718293a4b5c6d7e",
            tracker="file",
            test_command="python -m pytest -q",
            baseline_tests=PASSING,
        ),
    )


def spec_to_issues(checkpoint_id: str = "spec_to_issues-0") -> Checkpoint:
    drafts = [
        IssueDraft(
            title="Add slugify",
            summary="Add `slugify(text)` in `textkit/slug.py`: turn a title into a URL slug.",
            test_criteria=['"Café Crème" becomes "cafe-creme"'],
        ),
        IssueDraft(
            title="Add word_count",
            summary="Count case-insensitive word frequencies.",
            open_questions=["Do apostrophes split words?"],
        ),
        IssueDraft(
            title="Add truncate",
            summary="Cut text to a width, ending with an ellipsis.",
            depends_on=[1],
        ),
    ]
    return SpecToIssuesCheckpoint(
        id=checkpoint_id,
        created_at=_at(1),
        what_happened=["read the spec and the README", "proposed 3 spec-faithful issues"],
        to_decide="Create these issues?",
        if_approved="The issues are created in the tracker",
        if_rejected="The model proposes again, with your feedback",
        context=SpecToIssuesContext(issues=drafts, recommended_enrichment=[2]),
    )


def issue_enrichment(checkpoint_id: str = "issue_enrichment-0") -> Checkpoint:
    return IssueEnrichmentCheckpoint(
        id=checkpoint_id,
        created_at=_at(2),
        what_happened=["created issues #1, #2 and #3", "the model flagged #2 for enrichment"],
        to_decide="Which issues should get a deep-research session?",
        if_approved="The selected issues are enriched, then the feature branch is created",
        if_rejected="No issue is enriched",
        context=IssueEnrichmentContext(issues=ISSUES, recommended=[2]),
    )


def regression_approval(checkpoint_id: str = "regression_approval-0") -> Checkpoint:
    return RegressionApprovalCheckpoint(
        id=checkpoint_id,
        created_at=_at(3),
        what_happened=["implemented #1 Add slugify", "a test that passed before now fails"],
        to_decide="How should the regression be handled?",
        if_approved="The chosen action runs (fix_now: another session on #1)",
        if_rejected="Not possible: choose fix_now, defer or abort",
        context=RegressionApprovalContext(
            issue_iid=1,
            issue_title="Add slugify",
            newly_failing=["tests/test_normalize.py::test_collapses_tabs"],
            test_run=FAILING,
        ),
    )


def issue_selection(checkpoint_id: str = "issue_selection-0") -> Checkpoint:
    return IssueSelectionCheckpoint(
        id=checkpoint_id,
        created_at=_at(4),
        what_happened=["3 issues are open", "the model recommends #1 (no dependencies)"],
        to_decide="Work on issue #1 next?",
        if_approved="A coding session implements the chosen issue",
        if_rejected="The run moves on to the merge request stage",
        context=IssueSelectionContext(
            open_issues=ISSUES,
            recommended_iid=1,
            closed_count=0,
            blocked=[BlockedIssue(iid=4, title="Add slug_unique", waiting_for=[1])],
        ),
    )


DIFF = """\
diff --git a/textkit/slug.py b/textkit/slug.py
new file mode 100644
--- /dev/null
+++ b/textkit/slug.py
@@ -0,0 +1,6 @@
+import re
+import unicodedata
+
+def slugify(text: str) -> str:
+    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
+    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
"""


def issue_closure(checkpoint_id: str = "issue_closure-0") -> Checkpoint:
    return IssueClosureCheckpoint(
        id=checkpoint_id,
        created_at=_at(5),
        what_happened=["implemented #1 Add slugify", "tests pass: 7 passed", "committed 1304a2b"],
        to_decide="Close issue #1?",
        if_approved="The issue is closed and the next one is selected",
        if_rejected="Another session works on the issue with your feedback",
        context=IssueClosureContext(
            issue_iid=1,
            issue_title="Add slugify",
            commit_sha="1304a2b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3",
            commit_message="feat(#1): Add slugify",
            files_changed=["textkit/slug.py", "tests/test_slug.py"],
            diff_stat="2 files changed, 18 insertions(+)",
            diff=DIFF,
            test_run=PASSING.model_copy(update={"summary": "7 passed"}),
            model_summary="slugify() strips accents and joins words with dashes.",
        ),
    )


def mr_phase_transition(checkpoint_id: str = "mr_phase_transition-0") -> Checkpoint:
    return MrPhaseTransitionCheckpoint(
        id=checkpoint_id,
        created_at=_at(6),
        what_happened=["closed issues #1, #2 and #3", "final test run: 11 passed"],
        to_decide="Move on to the merge request?",
        if_approved="A session drafts the merge request",
        if_rejected="The run stops on the feature branch",
        context=MrPhaseTransitionContext(
            closed_issues=ISSUES,
            open_issues=[],
            test_run=PASSING.model_copy(update={"summary": "11 passed"}),
        ),
    )


def mr_review(checkpoint_id: str = "mr_review-0") -> Checkpoint:
    return MrReviewCheckpoint(
        id=checkpoint_id,
        created_at=_at(7),
        what_happened=["drafted the merge request", "the branch is up to date with main"],
        to_decide="Create this merge request?",
        if_approved="The merge request is created and verified",
        if_rejected="The model drafts it again with your feedback",
        context=MrReviewContext(
            title="Add slugify, word_count and truncate",
            description="Adds three text helpers.\n\n- slugify\n- word_count\n- truncate",
            source_branch="feature/textkit-helpers",
            target_branch="main",
            commits=["1304a2b feat(#1): Add slugify", "abf6bf4 feat(#2): Add word_count"],
            test_run=PASSING.model_copy(update={"summary": "11 passed"}),
        ),
    )


def budget_reached(checkpoint_id: str = "budget_reached-0") -> Checkpoint:
    spend = Spend(
        tokens_in=182_000,
        tokens_out=9_400,
        cache_read=150_000,
        cache_creation=20_000,
        cost_usd=1.0312,
        sessions=4,
        session_s=312.5,
    )
    first = Spend(tokens_in=120_000, tokens_out=6_000, cost_usd=0.6811, sessions=2, session_s=201)
    return BudgetReachedCheckpoint(
        id=checkpoint_id,
        created_at=_at(8),
        what_happened=["budget reached: cost: $1.0312 of $1.0000", f"spent so far: {spend.line()}"],
        to_decide="Raise the budget, stop here, or go on to the merge request?",
        if_approved="merge_request: the merge request is prepared with what is done",
        if_rejected="The run stops here; `harness resume` asks again",
        context=BudgetReachedContext(
            reached=["cost: $1.0312 of $1.0000"],
            spend=spend,
            issue_spend={1: first},
            budgets=Budgets(cost_usd=1.0),
            current_issue=2,
        ),
    )


SPEC_TEXT = """## Summary
Add `truncate(text, width)` in `textkit/truncate.py`.

## Requirement Details
- Text of at most width characters is returned unchanged.
- A negative width raises ValueError.

## Test Criteria
- tests/test_truncate.py covers each acceptance criterion."""
ENRICHED_TEXT = """## Summary
Add `word_count(text)` in `textkit/counting.py`.

## Requirement Details
- Words are runs of letters and digits.

## Test Criteria
- tests/test_counting.py covers each acceptance criterion."""


def enrichment_scope(checkpoint_id: str = "enrichment_scope-0") -> Checkpoint:
    return EnrichmentScopeCheckpoint(
        id=checkpoint_id,
        created_at=_at(3),
        what_happened=[
            "1 enrichment(s) dropped or altered what the spec-faithful issue said: #3",
            "they are not applied: each issue keeps its spec-faithful text for now",
        ],
        to_decide="Apply these enrichments, although they change the issues' scope?",
        if_approved="The selected enrichments replace their issues' text (default: none)",
        if_rejected="Every listed issue keeps its spec-faithful text",
        context=EnrichmentScopeContext(
            changes=[
                ScopeChange(
                    iid=3,
                    spec_title="Add truncate",
                    enriched_title="Add word_count",
                    dropped=[
                        "title: 'Add truncate' became 'Add word_count'",
                        "Summary: Add `truncate(text, width)` in `textkit/truncate.py`.",
                        "Requirement Details: A negative width raises ValueError.",
                    ],
                    diff=scope_diff(3, "Add truncate", SPEC_TEXT, "Add word_count", ENRICHED_TEXT),
                )
            ]
        ),
    )


CONFLICTED_DIFF = """diff --cc textkit/slug.py
index 3b18e51,9f2c1e0..0000000
--- a/textkit/slug.py
+++ b/textkit/slug.py
@@@ -1,4 -1,4 +1,8 @@@
  def slugify(text: str) -> str:
++<<<<<<< HEAD
 +    return "-".join(text.lower().split())
++=======
+     return "-".join(word.strip(".,") for word in text.lower().split())
++>>>>>>> feature/textkit-helpers-issue-3"""


def merge_conflict(checkpoint_id: str = "merge_conflict-issue3-6") -> Checkpoint:
    return MergeConflictCheckpoint(
        id=checkpoint_id,
        created_at=_at(9),
        what_happened=[
            "issue #3 was accepted; merging its branch into feature/textkit-helpers conflicts",
            "conflicted files: textkit/slug.py",
            "conflicted merge #2: the first sent it back, and it was redone on the updated "
            "feature branch",
        ],
        to_decide="Issue #3's branch conflicts with the feature branch again. What should happen?",
        if_approved="redo: code the issue again on the updated feature branch; retry: merge the "
        "branch as it is now; set_aside: leave it for a person",
        if_rejected="The run pauses here; `harness resume` asks again",
        context=MergeConflictContext(
            issue_iid=3,
            issue_title="Add truncate",
            branch="feature/textkit-helpers-issue-3",
            feature_branch="feature/textkit-helpers",
            worktree="~/.harness/worktrees/textkit/issue-3",
            conflicts=["textkit/slug.py"],
            conflicts_so_far=2,
            diff=DiffExcerpt(
                stat=" textkit/slug.py | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)",
                text=CONFLICTED_DIFF,
                range="feature/textkit-helpers...feature/textkit-helpers-issue-3",
            ),
        ),
    )


BUILDERS = {
    CheckpointType.PROJECT_VERIFICATION: project_verification,
    CheckpointType.SPEC_TO_ISSUES: spec_to_issues,
    CheckpointType.ISSUE_ENRICHMENT: issue_enrichment,
    CheckpointType.REGRESSION_APPROVAL: regression_approval,
    CheckpointType.ISSUE_SELECTION: issue_selection,
    CheckpointType.ISSUE_CLOSURE: issue_closure,
    CheckpointType.MR_PHASE_TRANSITION: mr_phase_transition,
    CheckpointType.MR_REVIEW: mr_review,
    CheckpointType.BUDGET_REACHED: budget_reached,
    CheckpointType.ENRICHMENT_SCOPE: enrichment_scope,
    CheckpointType.MERGE_CONFLICT: merge_conflict,
}
"""One sample per checkpoint type, by type."""

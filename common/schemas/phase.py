"""The stages and phases of a run: their own small module, so the front ends' first
screens name a phase without building the agent state's schemas."""

from __future__ import annotations

from enum import StrEnum


class Stage(StrEnum):
    """The three agents of the seed, as stages of one run."""

    INITIALIZER = "initializer"
    CODING = "coding"
    MR = "mr"
    END = "end"


class Phase(StrEnum):
    """Every step of a run. The legal moves between them live in ``agent.core.run.phases``."""

    PROJECT_VERIFICATION = "project_verification"
    """Check the repository, branch, tracker and test command; then ask the human."""
    SPEC_TO_ISSUES = "spec_to_issues"
    """A session breaks the spec into issues; the human approves or sends feedback."""
    ISSUE_ENRICHMENT = "issue_enrichment"
    """The human picks issues to enrich; one session per picked issue."""
    CREATE_BRANCH = "create_branch"
    """Create (or check out) the feature branch from the target branch."""
    ISSUE_SELECTION = "issue_selection"
    """Pick the next open issue (or move on to the MR stage when none is left)."""
    CODING = "coding"
    """One session on one issue; the harness runs the gates and commits."""
    REGRESSION_APPROVAL = "regression_approval"
    """Tests that passed before now fail: the human picks an explicit action."""
    ISSUE_CLOSURE = "issue_closure"
    """The human reviews the diff and test results before the issue is closed."""
    MR_PHASE_TRANSITION = "mr_phase_transition"
    """Final tests, then the gate into the merge request stage."""
    MR_REVIEW = "mr_review"
    """A session drafts the merge request; the human reviews it."""
    MR_CREATE = "mr_create"
    """Create the merge request and verify it exists."""
    DONE = "done"
    FAILED = "failed"

    @property
    def stage(self) -> Stage:
        """The stage (seed agent) this phase belongs to."""
        return _STAGES[self]


_STAGES: dict[Phase, Stage] = {
    Phase.PROJECT_VERIFICATION: Stage.INITIALIZER,
    Phase.SPEC_TO_ISSUES: Stage.INITIALIZER,
    Phase.ISSUE_ENRICHMENT: Stage.INITIALIZER,
    Phase.CREATE_BRANCH: Stage.INITIALIZER,
    Phase.ISSUE_SELECTION: Stage.CODING,
    Phase.CODING: Stage.CODING,
    Phase.REGRESSION_APPROVAL: Stage.CODING,
    Phase.ISSUE_CLOSURE: Stage.CODING,
    Phase.MR_PHASE_TRANSITION: Stage.MR,
    Phase.MR_REVIEW: Stage.MR,
    Phase.MR_CREATE: Stage.MR,
    Phase.DONE: Stage.END,
    Phase.FAILED: Stage.END,
}

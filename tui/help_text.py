"""What the help screen explains besides the keys: how a diff reads, the phases and every
checkpoint (the seed's eight, budget_reached, enrichment_scope and merge_conflict).

Kept as data next to the TUI (the agent's own texts travel with each checkpoint);
a test checks that every phase and every checkpoint type is covered.
"""

from __future__ import annotations

from common.schemas.checkpoint_type import CheckpointType
from common.schemas.phase import Phase

#: A diff's keys (the same on the dialog, the review and full screen) and its marks.
DIFF: tuple[tuple[str, str], ...] = (
    ("] [", "next / previous file"),
    ("f", "the diff full screen (Esc or f goes back)"),
    ("p", "the diff in your pager: delta, else $PAGER, else less (not in harness web)"),
    ("↪", "starts each further row of a line wider than the view: nothing is cut"),
    ("·×N", "N blanks in a row, shown so no code hides after them"),
    ("⚠", "a line to read whole: over 200 characters, or 20+ blanks in a row"),
)

PHASES: dict[Phase, str] = {
    Phase.PROJECT_VERIFICATION: "checks repository, branch, tracker and tests; asks you first",
    Phase.SPEC_TO_ISSUES: "a session breaks the spec into issues; you approve or send feedback",
    Phase.ISSUE_ENRICHMENT: "you pick issues to research; one session rewrites each",
    Phase.CREATE_BRANCH: "creates (or checks out) the feature branch",
    Phase.ISSUE_SELECTION: "picks the next open issue, or moves on to the merge request",
    Phase.CODING: "one session implements one issue; the harness runs the tests and commits",
    Phase.REGRESSION_APPROVAL: "tests that passed before fail now: you choose what happens",
    Phase.ISSUE_CLOSURE: "you review the diff and the test run before the issue closes",
    Phase.MR_PHASE_TRANSITION: "final tests, then the gate into the merge request stage",
    Phase.MR_REVIEW: "a session drafts the merge request; you review it",
    Phase.MR_CREATE: "creates the merge request and checks it exists",
    Phase.DONE: "finished: the summary shows branch, commits, issues, MR, tests, spend (g reruns)",
    Phase.FAILED: "stopped on an error; the reason is in the list and the log (r resumes)",
}

#: Per checkpoint: what it decides, what Y does, what N does.
CHECKPOINTS: dict[CheckpointType, tuple[str, str, str]] = {
    CheckpointType.PROJECT_VERIFICATION: (
        "start work on this project with this configuration?",
        "the spec is broken into issues",
        "the run ends; nothing is created",
    ),
    CheckpointType.SPEC_TO_ISSUES: (
        "create the proposed issues?",
        "the issues are created in the tracker",
        "a new proposal is made with your reason",
    ),
    CheckpointType.ISSUE_ENRICHMENT: (
        "which issues to research and rewrite (R to pick)?",
        "the model's picks are enriched, one session each",
        "nothing is enriched; coding starts",
    ),
    CheckpointType.ENRICHMENT_SCOPE: (
        "apply enrichments that drop or alter what an issue said (R: diffs, pick)?",
        "none is applied: each issue keeps its spec-faithful text",
        "none is applied: each issue keeps its spec-faithful text",
    ),
    CheckpointType.ISSUE_SELECTION: (
        "which issue next (R to pick another)?",
        "a coding session works on the recommended issue",
        "the run pauses; r (resume) asks again",
    ),
    CheckpointType.REGRESSION_APPROVAL: (
        "tests that passed now fail: fix_now, defer or abort (R)?",
        "fix_now: another session fixes it",
        "blocked: choose an action with R",
    ),
    CheckpointType.ISSUE_CLOSURE: (
        "close the issue after reviewing its diff and tests (R)?",
        "the issue is closed and the next one selected",
        "another session works on it with your reason",
    ),
    CheckpointType.MR_PHASE_TRANSITION: (
        "move on to the merge request stage?",
        "a session drafts the merge request",
        "the run pauses; r (resume) asks again",
    ),
    CheckpointType.MR_REVIEW: (
        "create this merge request?",
        "the merge request is created",
        "it is drafted again with your reason",
    ),
    CheckpointType.BUDGET_REACHED: (
        "a budget (cost or time) is reached: raise it (R), stop, or go to the MR?",
        "the merge request is drafted with what is done",
        "the run stops; r (resume) asks again",
    ),
    CheckpointType.MERGE_CONFLICT: (
        "an issue's branch conflicts again after a redo: redo, retry or set_aside (R)?",
        "redo: it is coded again on the updated feature branch",
        "the run pauses; r (resume) asks again",
    ),
}

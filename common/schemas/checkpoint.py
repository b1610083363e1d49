"""``.hitl_checkpoint.json`` and ``.hitl_checkpoint_log.json``: the checkpoints.

Each checkpoint type has its own context (what the human needs to see) and its
own decision (what the human can choose). The union is discriminated by ``type``.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, RootModel, TypeAdapter, model_validator

from common import dependencies
from common.schemas.base import StrictModel, utc_now
from common.schemas.budget import Budgets
from common.schemas.checkpoint_type import CheckpointType as CheckpointType
from common.schemas.coverage import SpecCoverage
from common.schemas.gates import GateRefusal, TestRun
from common.schemas.issues import IssueDraft
from common.schemas.long_lines import LongLines
from common.schemas.mcp_server import McpServer
from common.schemas.notify import NotifyTargets
from common.schemas.outbound import FileChoice, Finding, FlaggedFile, OutboundSettings
from common.schemas.sandbox_hosts import HostPort
from common.schemas.spend import Spend


class BudgetAction(StrEnum):
    """What follows a reached budget."""

    RAISE = "raise"
    """Raise the reached budget(s) and carry on."""
    STOP = "stop"
    """Pause the run here; ``harness resume`` asks again."""
    MERGE_REQUEST = "merge_request"
    """Start no new issue: set the current one aside and go on to the MR with what is done."""


class RegressionAction(StrEnum):
    """The explicit answers to a regression; there is no plain reject."""

    FIX_NOW = "fix_now"
    """Run another session on the same issue to fix the regression."""
    DEFER = "defer"
    """File a bug issue for the regression and carry on."""
    ABORT = "abort"
    """Stop the run; the branch keeps everything committed so far."""


class MergeConflictAction(StrEnum):
    """What follows an issue's branch conflicting with the feature branch after it was redone."""

    REDO = "redo"
    """Reset the branch onto the updated feature branch and code the issue again, the
    conflict as the harness's feedback."""
    RETRY = "retry"
    """Merge again the branch as it is now (a person resolved the conflict on it)."""
    SET_ASIDE = "set_aside"
    """Leave the issue for a person (``needs-human``), its branch kept; the others go on."""


class IssueRef(StrictModel):
    """An issue as a checkpoint lists it."""

    iid: int
    title: str
    labels: list[str] = Field(default_factory=list)


# --- decisions -------------------------------------------------------------------------


class Decision(StrictModel):
    """Who decided what, and when."""

    approved: bool
    reason: str | None = None
    decided_by: str
    """``auto-accept``, ``timeout``, ``cli:<user>`` or ``tui:<user>``."""
    rule: str | None = None
    """Which rule decided, in words a person reads (``auto-accept: issue_closure=approve``,
    ``timeout after 5 min: default``); ``None`` for a person's own answer. Signed with
    the rest of the decision, so the model cannot claim a rule decided."""
    decided_at: datetime = Field(default_factory=utc_now)
    mac: str | None = None
    """HMAC-SHA256 by a client (or the agent's auto-accept) over the workspace, the
    checkpoint and this decision; a decision without a valid one does not count
    (see :mod:`common.decision_mac`)."""


class EnrichmentDecision(Decision):
    """Which issues to enrich; a reject is the empty selection."""

    selected: list[int] = Field(default_factory=list)


class ScopeDecision(Decision):
    """enrichment_scope: which enrichments that change an issue's scope to apply; every
    other listed issue keeps its spec-faithful text (the default, and a reject)."""

    selected: list[int] = Field(default_factory=list)


class ProposalDecision(Decision):
    """spec_to_issues: create the proposed issues, with a person's changes to what depends
    on what (signed with the rest of the decision, so the model cannot make them)."""

    depends_on: dict[int, list[int]] = Field(default_factory=dict)
    """Position → the positions it depends on, replacing the proposal's for each position
    named (the others keep the model's); empty: the proposal's dependencies as shown."""


class SelectionDecision(Decision):
    """Which issue to work on next; ``None`` when rejected."""

    issue_iid: int | None = None

    @model_validator(mode="after")
    def _issue_when_approved(self) -> SelectionDecision:
        if self.approved and self.issue_iid is None:
            raise ValueError("an approved issue selection names an issue")
        return self


class RegressionDecision(Decision):
    """One explicit action; approval is implied by choosing one."""

    action: RegressionAction

    @model_validator(mode="after")
    def _never_plain_reject(self) -> RegressionDecision:
        if not self.approved:
            raise ValueError("regression_approval cannot be rejected: choose an action")
        return self


class ClosureDecision(Decision):
    """issue_closure: close the issue, or send it back; and for each flagged file held out
    of the commit, the person's choice (signed with the rest of the decision)."""

    files: dict[str, FileChoice] = Field(default_factory=dict)
    """Flagged path → approve (commit it, naming the person) or exclude (never commit
    it). ``wait`` is no answer: an approval must choose for every flagged file."""


class BudgetDecision(Decision):
    """An action; a plain reject is ``stop``. ``raise`` may name the new limits."""

    action: BudgetAction = BudgetAction.STOP
    cost_usd: float | None = Field(default=None, gt=0)
    """The new cost budget (``raise``); ``None``: double the one reached."""
    wall_time_min: float | None = Field(default=None, gt=0)
    """The new time budget (``raise``); ``None``: double the one reached."""

    @model_validator(mode="after")
    def _reject_is_stop(self) -> BudgetDecision:
        if not self.approved and self.action is not BudgetAction.STOP:
            raise ValueError("a rejected budget_reached checkpoint stops the run")
        return self


class MergeConflictDecision(Decision):
    """merge_conflict: one action when approved; a reject pauses the run and names none."""

    action: MergeConflictAction | None = None

    @model_validator(mode="after")
    def _action_only_when_approved(self) -> MergeConflictDecision:
        if self.approved and self.action is None:
            raise ValueError("an approved merge_conflict decision names an action")
        if not self.approved and self.action is not None:
            raise ValueError("a rejected merge_conflict checkpoint pauses the run: no action")
        return self


# --- contexts --------------------------------------------------------------------------


class ProjectVerificationContext(StrictModel):
    project_dir: str
    current_branch: str
    target_branch: str
    feature_branch: str
    head_commit: str
    tracker: Literal["file", "gitlab"]
    test_command: str | None
    baseline_tests: TestRun | None = None
    quality_checks: dict[str, TestRun] = Field(default_factory=dict)
    """Each quality check's run before any change (lint, type check…)."""
    uncommitted: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    sandbox_changes: list[str] = Field(default_factory=list)
    """How the sandbox layout the project asks for differs from the one recorded (also
    among ``warnings``); non-empty: a changed sandbox plan, which always waits for a
    person whatever the auto-accept rules say."""
    outbound: OutboundSettings | None = None
    """The outbound review's settings as shown to the person: recorded as approved, never
    read again after the decision (``None``: a checkpoint from before they were carried)."""
    notify: NotifyTargets | None = None
    """The repository's ``.harness.json`` webhook as shown to the person (``what_happened``
    names its host or variable): recorded as approved, never read again after."""
    sandbox_hosts: list[HostPort] = Field(default_factory=list)
    """The repository's ``.harness.json`` ``sandbox_hosts`` as shown to the person:
    recorded as approved, never read again after."""
    mcp_servers: list[McpServer] = Field(default_factory=list)
    """The repository's ``.harness.json`` ``mcp_servers`` as shown to the person (each
    one's command or URL, session kinds and hosts): recorded as approved."""


class SpecToIssuesContext(StrictModel):
    issues: list[IssueDraft]
    recommended_enrichment: list[int] = Field(default_factory=list)
    """1-based positions in ``issues`` the model suggests enriching."""
    attempt: int = 1
    feedback: str | None = None
    """The reason the previous proposal was rejected, if any."""
    spec_sections: list[str] = Field(default_factory=list)
    """Every section of the spec, as the harness names them."""
    uncovered_sections: list[str] = Field(default_factory=list)
    """Sections no proposed issue covers (the harness's count)."""


class IssueEnrichmentContext(StrictModel):
    issues: list[IssueRef]
    recommended: list[int] = Field(default_factory=list)
    """Issue iids the model suggests enriching."""


class ScopeChange(StrictModel):
    """One issue whose enrichment dropped or altered what the spec-faithful text said."""

    iid: int
    spec_title: str
    """The title approved at spec_to_issues."""
    enriched_title: str
    """The title the enrichment session wrote (the model's words)."""
    dropped: list[str]
    """The harness's list of what the enriched text no longer says (quoting the model)."""
    diff: str
    """Unified diff of the issue's text, spec-faithful → enriched, headed ``issue-N.md``."""


class EnrichmentScopeContext(StrictModel):
    changes: list[ScopeChange]


class DiffExcerpt(StrictModel):
    """A diff a checkpoint shows: cut to a reviewable size, never silently."""

    stat: str
    """``git diff --stat``."""
    text: str
    range: str
    """The git range: ``git diff RANGE`` in the project shows the whole diff."""
    cut_at: int | None = None
    """Where ``text`` was cut (characters), ``None`` when it is whole."""
    long_lines: LongLines | None = None
    """The lines a person must read whole (very long, or padded with blanks), counted
    over the whole diff; ``None``: written before the harness counted them (the viewers
    count the stored text instead)."""


class RegressionApprovalContext(StrictModel):
    issue_iid: int | None
    """``None``: the regression check before the merge request (no issue in progress)."""
    issue_title: str
    newly_failing: list[str]
    test_run: TestRun
    actions: list[RegressionAction] = Field(default_factory=lambda: list(RegressionAction))
    diff: DiffExcerpt | None = None
    """The issue's diff (the code that broke the tests); the branch's before the MR."""


class MergeConflictContext(StrictModel):
    """An issue's branch that conflicts with the feature branch again, after a redo."""

    issue_iid: int
    issue_title: str
    branch: str
    """The issue's branch (kept whatever the person chooses, until it is merged)."""
    feature_branch: str
    worktree: str
    """The issue's worktree, where a person may resolve the conflict before ``retry``."""
    conflicts: list[str]
    """The conflicted paths as git named them, escaped."""
    conflicts_so_far: int = Field(ge=1)
    """Conflicted merges of this branch, this one included."""
    diff: DiffExcerpt
    """The conflicted diff (``git diff`` during the aborted merge), escaped; its range
    shows the branch's own changes since it left the feature branch."""
    actions: list[MergeConflictAction] = Field(default_factory=lambda: list(MergeConflictAction))


class BlockedIssue(IssueRef):
    """An open issue that may not start yet: the harness's reading of the dependencies."""

    waiting_for: list[int]
    """Its dependencies that are not closed yet."""


class IssueSelectionContext(StrictModel):
    open_issues: list[IssueRef]
    """The open issues that may start now (every dependency closed): the choice."""
    recommended_iid: int
    closed_count: int = 0
    blocked: list[BlockedIssue] = Field(default_factory=list)
    """Open issues waiting for dependencies: shown, never chosen."""


class ChangesSinceRejection(StrictModel):
    """What the issue's branch gained since a person rejected its closure: git's facts,
    read by the harness (commits, files, counts), never the model's account of them."""

    checkpoint_id: str
    """The rejected issue_closure checkpoint."""
    commit_sha: str
    """The commit that rejected closure showed."""
    commits: list[str] = Field(default_factory=list)
    """Commits since then, oldest first (full ids)."""
    files: list[str] = Field(default_factory=list)
    """Files changed since then, escaped to one line each."""
    shortstat: str = ""
    """``git diff --shortstat`` since then (empty: no change)."""


class IssueClosureContext(StrictModel):
    issue_iid: int
    issue_title: str
    commit_sha: str
    commit_message: str
    files_changed: list[str]
    diff_stat: str
    diff: str
    """The issue's diff, cut to a reviewable size."""
    diff_range: str = ""
    """The git range of the issue's commits (``A~1..B``): ``git diff`` of it is the whole diff."""
    diff_cut_at: int | None = None
    """Where ``diff`` was cut (characters), ``None`` when it is whole: the person is told."""
    diff_long_lines: LongLines | None = None
    """The lines of the issue's diff a person must read whole (very long, or padded with
    blanks), counted over the whole diff; ``None``: written before the harness counted."""
    test_run: TestRun | None = None
    model_summary: str = ""
    gate_refusals: list[GateRefusal] = Field(default_factory=list)
    """Earlier "done" claims on this issue that the harness's test gate refused."""
    checks: dict[str, TestRun] = Field(default_factory=dict)
    """The quality checks' runs on the issue's work (lint, type check…)."""
    kept_out: list[str] = Field(default_factory=list)
    """Paths the issue's sessions changed that the harness kept out of its commits (a
    nested git repository, a name with control or bidi characters), escaped, each with
    why: ``vendor/lib/ (a nested git repository (vendor/lib/.git))``."""
    flagged: list[FlaggedFile] = Field(default_factory=list)
    """Files the outbound review held out of the issue's commits (CI configuration,
    agent settings, credentials, links out of the project…): each waits for a person's
    choice; auto-accept never approves one."""
    gate_findings: list[str] = Field(default_factory=list)
    """About the tree the gates ran on, escaped, one line each: what a gate changed in
    it (never committed: the commits hold what the gates ran), an ignored file a session
    wrote that the gates run (code, a runner's configuration, anything under the
    environment), an environment that no longer leads to the recorded one. Any of them
    makes the closure wait for a person, whatever the auto-accept rules say."""
    gate_ignored: list[str] = Field(default_factory=list)
    """Files the gates wrote that the project ignores, by folder (``build/: 3 file(s)``);
    named only (the test tools' own caches are not listed)."""
    issue_findings: list[Finding] = Field(default_factory=list)
    """Findings about the issue as a whole (its diff over the budget): a person decides."""
    since_rejection: ChangesSinceRejection | None = None
    """When a person rejected this issue's closure before: what changed since."""
    screenshots: list[str] = Field(default_factory=list)
    """The browser's screenshots of the issue's sessions, in the workspace (paths a person
    can open; the harness named them, checked them as PNGs and bounded them)."""
    special_files: list[str] = Field(default_factory=list)
    """FIFOs, sockets and devices in the work tree, escaped, each with what it is
    (``tools/pipe (a FIFO)``): git lists none, so they are in no commit and no diff."""


class MrPhaseTransitionContext(StrictModel):
    closed_issues: list[IssueRef]
    open_issues: list[IssueRef]
    test_run: TestRun | None = None
    skip_mr_creation: bool = False
    coverage: SpecCoverage | None = None
    """Spec sections no closed issue covers and issues left undone (the harness's count)."""


class BudgetReachedContext(StrictModel):
    reached: list[str]
    """Which budgets were reached, e.g. ``cost: $1.02 of $1.00``."""
    spend: Spend
    """Every session of the run so far."""
    issue_spend: dict[int, Spend] = Field(default_factory=dict)
    budgets: Budgets
    current_issue: int | None = None
    """The issue in progress, set aside when the run goes on to the MR."""
    actions: list[BudgetAction] = Field(default_factory=lambda: list(BudgetAction))


class MrReviewContext(StrictModel):
    title: str
    description: str
    source_branch: str
    target_branch: str
    commits: list[str]
    test_run: TestRun | None = None
    flagged: list[FlaggedFile] = Field(default_factory=list)
    """Changes on the branch the outbound review flags and no person approved (found by
    scanning the whole branch again before the push): approving the merge request
    approves them, and they are listed in it with who approved them."""
    diff: DiffExcerpt | None = None
    """The branch's diff against the target, as the merge request will carry it."""


# --- checkpoints -----------------------------------------------------------------------


class CheckpointBase(StrictModel):
    """What every checkpoint shows: the seed's WHAT HAPPENED / IF APPROVED / IF REJECTED."""

    schema_version: Literal[1] = 1
    id: str
    """Unique within the workspace; a decision names the id it answers."""
    status: Literal["pending", "decided"] = "pending"
    created_at: datetime = Field(default_factory=utc_now)
    what_happened: list[str]
    to_decide: str
    if_approved: str
    if_rejected: str


class ProjectVerificationCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.PROJECT_VERIFICATION] = CheckpointType.PROJECT_VERIFICATION
    context: ProjectVerificationContext
    decision: Decision | None = None


class SpecToIssuesCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.SPEC_TO_ISSUES] = CheckpointType.SPEC_TO_ISSUES
    context: SpecToIssuesContext
    decision: ProposalDecision | None = None

    def dependencies(self) -> dict[int, list[int]]:
        """Position → the positions it depends on: the proposal's, with the decision's edits."""
        proposed = dependencies.positions([issue.depends_on for issue in self.context.issues])
        edits = self.decision.depends_on if self.decision is not None else {}
        return dependencies.edited(proposed, edits)

    @model_validator(mode="after")
    def _dependencies_are_a_graph(self) -> SpecToIssuesCheckpoint:
        decision = self.decision
        if decision is None or not decision.depends_on:
            return self
        if not decision.approved:
            raise ValueError("a rejected proposal changes no dependency")
        known = range(1, len(self.context.issues) + 1)
        problem = dependencies.graph_problem(self.dependencies(), known)
        if problem is not None:
            raise ValueError(problem)
        return self


class IssueEnrichmentCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ISSUE_ENRICHMENT] = CheckpointType.ISSUE_ENRICHMENT
    context: IssueEnrichmentContext
    decision: EnrichmentDecision | None = None


class RegressionApprovalCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.REGRESSION_APPROVAL] = CheckpointType.REGRESSION_APPROVAL
    context: RegressionApprovalContext
    decision: RegressionDecision | None = None


class IssueSelectionCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ISSUE_SELECTION] = CheckpointType.ISSUE_SELECTION
    context: IssueSelectionContext
    decision: SelectionDecision | None = None


class IssueClosureCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ISSUE_CLOSURE] = CheckpointType.ISSUE_CLOSURE
    context: IssueClosureContext
    decision: ClosureDecision | None = None

    @model_validator(mode="after")
    def _every_flagged_file_chosen(self) -> IssueClosureCheckpoint:
        decision = self.decision
        if decision is None or not decision.approved:
            return self
        flagged = {item.path for item in self.context.flagged}
        unknown = sorted(set(decision.files) - flagged)
        if unknown:
            raise ValueError(f"not a flagged file: {', '.join(unknown)}")
        open_ = sorted(
            path for path in flagged if decision.files.get(path, FileChoice.WAIT) is FileChoice.WAIT
        )
        if open_:
            raise ValueError(
                "choose approve or exclude for every flagged file; no choice for: "
                + ", ".join(open_)
            )
        return self


class MrPhaseTransitionCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.MR_PHASE_TRANSITION] = CheckpointType.MR_PHASE_TRANSITION
    context: MrPhaseTransitionContext
    decision: Decision | None = None


class MrReviewCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.MR_REVIEW] = CheckpointType.MR_REVIEW
    context: MrReviewContext
    decision: Decision | None = None


class BudgetReachedCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.BUDGET_REACHED] = CheckpointType.BUDGET_REACHED
    context: BudgetReachedContext
    decision: BudgetDecision | None = None


class EnrichmentScopeCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.ENRICHMENT_SCOPE] = CheckpointType.ENRICHMENT_SCOPE
    context: EnrichmentScopeContext
    decision: ScopeDecision | None = None

    @model_validator(mode="after")
    def _selected_are_listed(self) -> EnrichmentScopeCheckpoint:
        decision = self.decision
        if decision is None:
            return self
        unknown = sorted(set(decision.selected) - {change.iid for change in self.context.changes})
        if unknown:
            raise ValueError(f"not an issue of this checkpoint: {unknown}")
        if not decision.approved and decision.selected:
            raise ValueError("a rejected enrichment_scope checkpoint applies no enrichment")
        return self


class MergeConflictCheckpoint(CheckpointBase):
    type: Literal[CheckpointType.MERGE_CONFLICT] = CheckpointType.MERGE_CONFLICT
    context: MergeConflictContext
    decision: MergeConflictDecision | None = None

    @model_validator(mode="after")
    def _action_offered(self) -> MergeConflictCheckpoint:
        decision = self.decision
        action = decision.action if decision is not None else None
        if action is not None and action not in self.context.actions:
            raise ValueError(f"{action.value} is not offered at this checkpoint")
        return self


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

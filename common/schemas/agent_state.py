"""``.agent_state.json``: where the orchestrator is, persisted after every transition."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field, model_validator

from common.schemas.agent_state_upgrade import upgrade
from common.schemas.base import StrictModel, utc_now
from common.schemas.browser_check import BrowserCheck
from common.schemas.budget import Budgets
from common.schemas.coverage import SpecCoverage
from common.schemas.gates import TestRun
from common.schemas.issue_work import IssueWork
from common.schemas.issues import IssueDraft
from common.schemas.limits import DiskBaseline, MachineLimits
from common.schemas.mcp_server import McpServer
from common.schemas.notify import NotifyTargets
from common.schemas.outbound import ApprovedChange, OutboundSettings
from common.schemas.phase import Phase as Phase
from common.schemas.phase import Stage as Stage
from common.schemas.sandbox_hosts import HostPort
from common.schemas.sandbox_layout import SandboxLayout
from common.schemas.spend import Spend


class Transition(StrictModel):
    """One recorded move of the phase machine."""

    from_phase: Phase
    to_phase: Phase
    reason: str = ""
    at: datetime = Field(default_factory=utc_now)


class PendingEnrichment(StrictModel):
    """An enrichment that changed its issue's scope: held, not applied, until a person
    decides at enrichment_scope (auto-accept keeps the spec-faithful text)."""

    iid: int
    title: str
    description: str
    labels: list[str] = Field(default_factory=list)
    """The labels the enrichment adds when applied (``enriched``, complexity, estimate)."""
    dropped: list[str] = Field(default_factory=list)
    """What the harness found dropped or altered (:mod:`agent.core.words.scope_change`)."""


class AgentState(StrictModel):
    """The orchestrator's durable memory between transitions.

    Everything a resumed agent needs to continue lives here or in the tracker. Each
    issue in progress is one :class:`IssueWork` in ``issues``; the rest belongs to the
    run. Worked one at a time there is at most one, read and set as ``issue``; worked
    in parallel each has its slot (:class:`~common.schemas.issue_slot.IssueSlot`).
    """

    schema_version: Literal[3] = 3
    phase: Phase = Phase.PROJECT_VERIFICATION
    test_command: str | None = None
    """Decided at project_verification (from the spec, or detected)."""
    spec_attempt: int = 1
    feedback: str | None = None
    """A human's rejection reason, handed to the next initializer or merge request
    session (an issue's feedback is in its :class:`IssueWork`)."""
    feedback_source: Literal["human", "harness"] = "human"
    """Who ``feedback`` comes from, so the model is told the truth about it."""
    recommended_enrichment: list[int] = Field(default_factory=list)
    """Issue iids the model suggested enriching."""
    enrichment_decided: bool = False
    enrichment_queue: list[int] = Field(default_factory=list)
    """Issue iids still to enrich."""
    spec_drafts: dict[int, IssueDraft] = Field(default_factory=dict)
    """Each issue's spec-faithful draft (by iid) as approved at spec_to_issues: the
    harness's own record an enrichment is compared with (never the tracker's text)."""
    scope_pending: list[PendingEnrichment] = Field(default_factory=list)
    """Enrichments that changed their issue's scope, waiting for enrichment_scope."""
    issues: dict[int, IssueWork] = Field(default_factory=dict)
    """The issues in progress by iid (none between issues); leaving one drops all of it
    at once (:meth:`leave_issue`)."""
    project_baseline: TestRun | None = None
    """The test run before any change (project_verification): its failures are
    pre-existing and never counted against the agent."""
    excluded: list[str] = Field(default_factory=list)
    """Flagged files a person excluded (escaped, with who): never committed, told to
    every later session of the run."""
    approved_changes: list[ApprovedChange] = Field(default_factory=list)
    """Flagged changes a person approved: listed in the merge request, with who."""
    outbound: OutboundSettings | None = None
    """The outbound review's settings, recorded at project_verification (``None``: a
    state from before them; the defaults)."""
    notify: NotifyTargets | None = None
    """The repository's ``.harness.json`` webhook as a person approved it at
    project_verification (``None``: none approved); never read from the file again."""
    repo_sandbox_hosts: list[HostPort] = Field(default_factory=list)
    """The repository's ``.harness.json`` ``sandbox_hosts`` as a person approved them at
    project_verification; never read from the file again."""
    repo_mcp_servers: list[McpServer] = Field(default_factory=list)
    """The repository's ``.harness.json`` ``mcp_servers`` as a person approved them at
    project_verification; never read from the file again."""
    last_test_run: TestRun | None = None
    """The latest run of the test suite on the work tree (by the gates, the baselines or
    before the merge request): reused while the work tree is unchanged."""
    regression: list[str] = Field(default_factory=list)
    """What the check before the merge request found failing (an issue's own regression
    is in its :class:`IssueWork`)."""
    mr_title: str | None = None
    mr_description: str | None = None
    git_config: str | None = None
    """``.git/config`` as recorded at project_verification; a change stops the run."""
    target_head: str | None = None
    """Where the target branch pointed at project_verification; a move stops the run."""
    sandbox_layout: SandboxLayout | None = None
    """The sandbox's project-dependent folders, recorded at project_verification (a
    state from before this field gets it at its next start); every sandbox uses it."""
    disk_baseline: DiskBaseline | None = None
    """The project's size when the run started, measured once at the agent's first start
    (``None`` before, or when it could not be measured): the disk budget counts from it."""
    machine_limits: MachineLimits | None = None
    """Which limits hold where the agent last started, and which could not be set (the
    start's probe): project_verification and ``harness status`` show it."""
    project_env_kind: str | None = None
    """The project environment's label approved at project_verification (``None``
    before it): later starts keep it, whatever the sessions made of the project."""
    project_env_variables: dict[str, str] | None = None
    """That environment's variables (``PATH``, ``VIRTUAL_ENV``), kept the same way."""
    project_env_root: str | None = None
    """The project venv's folder as it resolved at project_verification (links
    followed): the gates run its interpreter by this path, never through a ``.venv``
    link a session can replace."""
    harness_commits: list[str] = Field(default_factory=list)
    """Every commit the harness made on the feature branch; each must stay on it."""
    dismissed_checkpoints: list[str] = Field(default_factory=list)
    """Checkpoints rejected with "stop here": a restart asks again instead of stopping again."""
    decisions_on_tracker: list[str] = Field(default_factory=list)
    """Checkpoint ids whose decision is written on the tracker (the others in the log are
    written at the next decision: :mod:`agent.core.run.decision_record`)."""
    failure: str | None = None
    broken: bool = False
    """The run failed because the project's own tests cannot run (exit state "broken")."""
    quality_checks: dict[str, str] = Field(default_factory=dict)
    """Check name → command, decided at project_verification (the tests not included)."""
    check_baseline: dict[str, TestRun] = Field(default_factory=dict)
    """Each check before any change: one that failed then is reported, never blamed."""
    last_checks: dict[str, TestRun] = Field(default_factory=dict)
    """Each check's latest run."""
    spend: Spend = Field(default_factory=Spend)
    """Every session of the run so far."""
    issue_spend: dict[int, Spend] = Field(default_factory=dict)
    """The sessions of each issue (by iid)."""
    set_aside: list[int] = Field(default_factory=list)
    slots_opened: int = Field(default=0, ge=0)
    """Issues given a slot so far (parallel work): names each slot's issue_selection
    checkpoint, so a resumed agent finds the one it asked (the run's transition count
    does not move while slots run)."""
    """Issues left for a person after their session budget (label ``needs-human``)."""
    budgets: Budgets | None = None
    """Budgets a person raised at budget_reached; ``None``: the spec's."""
    wrap_up: bool = False
    """A person chose "go to the merge request with what is done": no new issue starts."""
    accepted_regressions: list[str] = Field(default_factory=list)
    """Failures a person deferred at the regression check before the merge request."""
    browser_checks: list[BrowserCheck] = Field(default_factory=list)
    """Each closed issue's browser check (the calls of its accepted session), replayed
    before the merge request (:mod:`agent.core.browser.replay`)."""
    coverage: SpecCoverage | None = None
    """What the run leaves undone, computed before the merge request (``None`` before)."""
    history: list[Transition] = Field(default_factory=list)
    updated_at: datetime = Field(default_factory=utc_now)

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        """A file from an earlier schema_version (1: flat issue fields, 2: one ``issue``)
        loads in this shape."""
        return upgrade(data) if isinstance(data, dict) else data

    @model_validator(mode="after")
    def _issues_are_whole(self) -> AgentState:
        """Each issue under its own number; several at once only each in its slot (one
        work tree cannot hold two issues' changes apart)."""
        for iid, work in self.issues.items():
            if work.iid != iid:
                raise ValueError(f"issues[{iid}] is the work of issue #{work.iid}")
        if len(self.issues) > 1 and any(work.slot is None for work in self.issues.values()):
            raise ValueError(
                f"{len(self.issues)} issues in progress, not each in its own slot (worktree)"
            )
        return self

    @property
    def issue(self) -> IssueWork | None:
        """The issue in progress when issues are worked one at a time (``None`` between
        issues).

        Raises:
            ValueError: several are in progress (parallel work names its issue:
                :meth:`work` with the iid).
        """
        if len(self.issues) > 1:
            raise ValueError(
                f"{len(self.issues)} issues are in progress ({_numbers(self.issues)}): "
                "name the one meant"
            )
        return next(iter(self.issues.values()), None)

    @issue.setter
    def issue(self, work: IssueWork | None) -> None:
        """Make ``work`` the only issue in progress (``None``: no issue)."""
        self.issues = {} if work is None else {work.iid: work}

    def slots(self) -> dict[int, IssueWork]:
        """The issues in progress that are worked in a slot (parallel work), by iid."""
        return {iid: work for iid, work in self.issues.items() if work.slot is not None}

    def editable_copy(self) -> AgentState:
        """An independent copy to edit: validating the dump builds every nested model and
        list anew (4 times faster than ``model_copy(deep=True)`` for a long history)."""
        return AgentState.model_validate(self.model_dump())

    def work(self, iid: int | None = None) -> IssueWork:
        """The issue ``iid`` in progress (``None``: the one issue worked alone).

        Raises:
            ValueError: that issue is not in progress (a phase or slot that needs it
                was reached without it: the state file is not one the harness wrote).
        """
        work = self.issue if iid is None else self.issues.get(iid)
        if work is None:
            which = "no issue is" if iid is None else f"issue #{iid} is not"
            raise ValueError(f"{which} in progress at {self.phase.value}")
        return work

    def leave_issue(self, iid: int | None = None, *, set_aside: bool = False) -> None:
        """Drop the issue ``iid`` in progress (``None``: the one worked alone), all of it
        (closed, set aside, left for later).

        What outlives it stays on the run: its spend (``issue_spend``), the commits the
        harness made, the files a person excluded or approved. ``set_aside``: it is also
        listed among the issues left for a person.
        """
        work = self.issue if iid is None else self.issues.get(iid)
        if work is None:
            return
        if set_aside:
            self.set_aside = [*self.set_aside, work.iid]
        self.issues = {key: value for key, value in self.issues.items() if key != work.iid}


def _numbers(issues: dict[int, IssueWork]) -> str:
    """``#1, #3``: the issues named in a message."""
    return ", ".join(f"#{iid}" for iid in sorted(issues))

"""``IssueWork``: everything the agent's state holds about the one issue being worked on.

Why one model: these fields begin and end with their issue. Kept flat in the state,
leaving an issue meant resetting each by hand, and the four places that did it
disagreed. Nested, leaving an issue is dropping its ``IssueWork``
(:meth:`common.schemas.agent_state.AgentState.leave_issue`), and N issues at once are
N of them. What outlives the issue (its spend, the commits the harness made, the
files a person excluded or approved, the issues set aside) stays on the run.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel
from common.schemas.browser_check import BrowserCall
from common.schemas.gates import GateRefusal, TestRun
from common.schemas.issue_slot import IssueSlot
from common.schemas.outbound import FlaggedFile
from common.schemas.verdict import SessionVerdict


class IssueWork(StrictModel):
    """One issue in progress: its sessions, commits, gates and what waits for a person."""

    iid: int
    """The issue's number in the tracker."""
    sessions: int = 0
    """Sessions spent on the issue so far (against ``sessions_per_issue``)."""
    commits: list[str] = Field(default_factory=list)
    """Every SHA committed for the issue (an issue may span sessions)."""
    baseline: TestRun | None = None
    """The test run before the issue's first session: its failures are not regressions."""
    tests: TestRun | None = None
    """The latest gate run of the issue's sessions: shown at issue_closure and
    regression_approval, quoted in the set-aside note."""
    verdict: SessionVerdict | None = None
    """A coding session's verdict, saved before the commit and note it leads to; a
    resumed agent applies it instead of running the session again."""
    gate_refusals: list[GateRefusal] = Field(default_factory=list)
    """The issue's "done" claims that the harness's test gate refused."""
    kept_out: list[str] = Field(default_factory=list)
    """Paths the issue's sessions changed that the harness kept out of every commit
    (escaped, with why): told to the next session, shown at issue_closure."""
    held: list[FlaggedFile] = Field(default_factory=list)
    """The issue's files the outbound review flagged, held out of every commit until a
    person approves or excludes each at issue_closure."""
    gate_findings: list[str] = Field(default_factory=list)
    """The findings of every session's gates on the issue (see
    :attr:`SessionVerdict.gate_findings`): each makes issue_closure wait for a person."""
    gate_ignored: list[str] = Field(default_factory=list)
    """Files the issue's gates wrote that the project ignores, by folder: named at
    issue_closure."""
    tested_tree: str | None = None
    """The tree the latest session's gates ran on: the files a person approves at
    issue_closure are committed only as they were there."""
    pre_session_dirty: list[str] | None = None
    """Paths that had uncommitted changes when the running session started; kept so that
    a resumed agent never commits a change the user had before the session."""
    pre_session_started_ns: int | None = None
    """When the running session started (``time.time_ns``): an ignored file whose inode
    changed since then was written by the session (:mod:`agent.core.git.hidden_writes`)."""
    done_summary: str | None = None
    """The model's words when the gates accepted the issue (shown at issue_closure)."""
    regression: list[str] = Field(default_factory=list)
    """Tests that passed before the issue and fail after its session."""
    browser_calls: list[BrowserCall] = Field(default_factory=list)
    """The browser calls of the issue's latest session that used the browser: its check,
    kept with the closed issue for the regression replay."""
    screenshots: list[str] = Field(default_factory=list)
    """The browser's screenshots of the issue's sessions, as the harness took them into
    the workspace (paths a person can open): listed at issue_closure."""
    feedback: str | None = None
    """Why the next session is needed: a person's reject or a refused gate."""
    feedback_source: Literal["human", "harness"] = "human"
    """Who ``feedback`` comes from, so the model is told the truth about it."""
    closure_note: str | None = None
    """The closure note prepared when a person accepted the issue in a slot: written when
    its branch is merged and the issue closed (a kill in between loses nothing)."""
    slot: IssueSlot | None = None
    """Its worktree, branch and step when issues are worked in parallel (``None``: the
    one issue worked in the project's own work tree, where the run's phase says
    where it stands)."""

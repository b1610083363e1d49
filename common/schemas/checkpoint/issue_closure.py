"""``issue_closure``: a person reviews an issue's work (its commit and diff, the test and
quality-check runs, what the harness kept out or found) and closes the issue or sends it
back; for each flagged file the outbound review held out of the commit, an approval
chooses approve or exclude."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from common.schemas.base import StrictModel
from common.schemas.checkpoint.base import CheckpointBase, Decision
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.gates import GateRefusal, TestRun
from common.schemas.long_lines import LongLines
from common.schemas.outbound import FileChoice, Finding, FlaggedFile


class ClosureDecision(Decision):
    """issue_closure: close the issue, or send it back; and for each flagged file held out
    of the commit, the person's choice (signed with the rest of the decision)."""

    files: dict[str, FileChoice] = Field(default_factory=dict)
    """Flagged path → approve (commit it, naming the person) or exclude (never commit
    it). ``wait`` is no answer: an approval must choose for every flagged file."""


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

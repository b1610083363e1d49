"""``IssueWork.verdict``: what the harness decided about a coding session, before acting.

Why: between the end of a session and the state write that records its outcome, the
harness commits and writes a handoff note. A kill in that window must not lose the
work or redo it. So the verdict is saved first (the intent); a resumed agent applies
the saved verdict again, adopting the commit it finds by its ``Harness-Session``
trailer instead of committing twice, and never runs the session again.
"""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel
from common.schemas.gates import GateRefusal, TestRun
from common.schemas.outbound import FlaggedFile


class SessionVerdict(StrictModel):
    """The gates' verdict on one coding session and what follows from it."""

    session: int = Field(ge=1)
    """The issue's session number (1-based)."""
    accepted: bool
    """Whether the harness accepts the issue as done (feat) or not (wip)."""
    files: list[str] = Field(default_factory=list)
    """The project files the session changed: what the commit holds (plain printable
    UTF-8 names only; a stale entry that is gone by the time of the commit is skipped)."""
    kept_out: list[str] = Field(default_factory=list)
    """Changed paths kept out of the commit, escaped, each with why (see
    :class:`~common.schemas.checkpoint.IssueClosureContext`)."""
    held: list[FlaggedFile] = Field(default_factory=list)
    """Changed files the outbound review flagged: held out of the commit for a person."""
    commit_message: str | None = None
    """The commit to make (``None``: nothing to commit)."""
    handoff_json: str | None = None
    """The handoff to note on the issue (a ``Handoff`` as JSON), if any."""
    done_summary: str | None = None
    """The model's claim, when it made one."""
    tests: TestRun | None = None
    refusal: GateRefusal | None = None
    """A refused "done" claim, without its commit (added once the commit is known)."""
    regression: list[str] = Field(default_factory=list)
    feedback: str | None = None
    """The harness's feedback for the next session, when the issue is not done."""
    tested_tree: str | None = None
    """The tree every gate of the session ran on (a work tree fingerprint): the commit
    holds exactly it for its files, or is refused (``None``: a verdict from before
    issue 26, committed as the tree is)."""
    gate_findings: list[str] = Field(default_factory=list)
    """What a person must see before the issue closes, escaped, one line each: what a
    gate changed in the tree it ran on (never committed), an ignored file the session
    wrote that the gates run, an environment that no longer leads to the recorded one."""
    gate_ignored: list[str] = Field(default_factory=list)
    """Files the gates wrote that the project ignores, by folder."""

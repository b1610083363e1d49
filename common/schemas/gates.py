"""Results of the quality gates the harness itself runs (never the model's word)."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class TestRun(StrictModel):
    """One run of the project's test command."""

    __test__ = False  # not a pytest test class

    command: str
    exit_code: int
    duration_s: float = Field(ge=0)
    summary: str
    """The runner's closing line, e.g. ``5 passed in 0.03s``."""
    failed_tests: list[str] = Field(default_factory=list)
    output_tail: str = ""
    """The last lines of the output, for a reviewer."""
    tree: str | None = None
    """The work tree the run saw (:func:`common.workspace.git.worktree_fingerprint`): a run on
    the same tree is not repeated."""

    @property
    def passed(self) -> bool:
        """Exit status 0 is the only pass."""
        return self.exit_code == 0


class GateRefusal(StrictModel):
    """A session said its issue was done and the harness's test gate said it was not."""

    session: int = Field(ge=1)
    """The issue's session (1-based) whose claim was refused."""
    claim: str
    """What the model said it had done."""
    commit_sha: str | None = None
    """The ``wip`` commit that keeps the session's work, if it changed files."""
    failing: list[str] = Field(default_factory=list)
    """The failures the gate counted against the issue (tests or the run itself)."""
    test_run: TestRun

"""Results of the quality gates the harness itself runs (never the model's word)."""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel


class GateWrites(StrictModel):
    """What a gate wrote in its view of the work tree: never committed (issue 26).

    A gate runs code the model wrote and may write anything its view allows; its
    verdict is about the tree it started on, which is what the harness commits. Where
    it saw an overlay its writes were discarded with it; where it ran on the work tree,
    the harness put the tested content back.
    """

    changed: list[str] = Field(default_factory=list)
    """Paths of the tested tree (every file git does not ignore) the gate changed, added
    or deleted, escaped, one line each (``calc/core.py: modified``): a finding a person
    sees at issue_closure."""
    ignored: list[str] = Field(default_factory=list)
    """Files the gate wrote that the project ignores, by folder (``build/: 3 file(s)``)."""
    caches: int = 0
    """Files it wrote in the test tools' caches (``.pytest_cache``, ``__pycache__``…):
    counted in the log only (every run writes them; none reaches a commit)."""
    overlay: bool = False
    """The gate saw the work tree as an overlay: everything it wrote was discarded."""
    restored: bool = False
    """The gate changed the work tree itself (it saw no overlay) and the harness put the
    tested content back after it."""

    @property
    def tampered(self) -> bool:
        """Whether the gate changed the tested tree."""
        return bool(self.changed)


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
    writes: GateWrites | None = None
    """What the run wrote in its view of the work tree (``None``: not looked at, as for a
    run recorded before issue 26)."""

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

"""What leaves the sandbox: the findings of the outbound review and the person's choices.

Why: the commit, the push and the merge request are the only way the model's work
leaves the sandbox, and CI configuration, editor and agent settings, package-manager
configuration, credentials and links out of the project act with someone else's
authority once they do (the project's CI secrets, the user's own Claude Code). So
every changed path is classified before the harness commits it; a flagged file waits
for a person (auto-accept never approves one), who approves or excludes it file by
file, or sends the issue back.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import Field

from common.schemas.base import StrictModel, utc_now


class FindingKind(StrEnum):
    """Why a change is flagged."""

    PROTECTED_PATH = "protected_path"
    """CI configuration, agent or editor settings, tool configuration, git metadata, or a
    path the spec or ``.harness.json`` protects."""
    SYMLINK_OUTSIDE = "symlink_outside"
    """A symbolic link that points outside the project (or into its ``.git``)."""
    NESTED_REPOSITORY = "nested_repository"
    """A gitlink (a nested repository) on the branch."""
    TOO_LARGE = "too_large"
    BINARY = "binary"
    NEW_EXECUTABLE = "new_executable"
    """A file that is executable now and was not before."""
    SECRET = "secret"
    """A credential found by the secret scanner, or a configured secret (never shown)."""
    DIFF_BUDGET = "diff_budget"
    """The issue's whole diff is over its budget of changed lines or files."""
    TOO_MANY_FILES = "too_many_files"
    """The session changed more files than ``limits.changed_files``: held whole, by
    folder, not read one by one (the branch's review before the push reads each)."""
    NOT_REVIEWED = "not_reviewed"
    """The review did not read it: not a regular file it could open, or its time ran
    out before it came to it."""


class Finding(StrictModel):
    """One reason a person must look at a change before it leaves the sandbox."""

    kind: FindingKind
    reason: str
    """One line for a person: what was found and where (a secret is named by its type and
    line, never by its value)."""


class FlaggedFile(StrictModel):
    """A changed file held out of the commit until a person decides."""

    path: str
    """As git names it (plain printable UTF-8: other names are kept out before review)."""
    findings: list[Finding]
    preview: str = ""
    """What the file holds (its start, or the link's target), for the person deciding;
    empty when it holds a secret, is binary or too large."""
    files: list[str] = Field(default_factory=list)
    """For a folder held whole (``path`` ends in ``/``; ``./`` is the top level): the
    changed files it stands for, each as git names it. Approving it commits exactly
    these; empty for a single file."""


class FileChoice(StrEnum):
    """A person's answer for one flagged file at issue_closure."""

    WAIT = "wait"
    """No answer yet: the default, and the only one auto-accept gives."""
    APPROVE = "approve"
    """Commit it; the commit names the person in an ``Approved-by`` trailer."""
    EXCLUDE = "exclude"
    """Leave it out of every commit; the sessions are told."""


class ApprovedChange(StrictModel):
    """A flagged change a person approved: listed, with who, in the merge request."""

    path: str
    reasons: list[str]
    approved_by: str
    approved_at: datetime = Field(default_factory=utc_now)
    where: str
    """The checkpoint it was approved at (``issue_closure-7``, ``mr_review-12``)."""
    blob: str | None = None
    """The git object approved (``None``: a deletion); a later change to the path is a new
    change and is reviewed again."""


DEFAULT_MAX_FILE_BYTES = 1_000_000
DEFAULT_MAX_DIFF_LINES = 2_000
DEFAULT_MAX_DIFF_FILES = 50


class OutboundSettings(StrictModel):
    """How the outbound review judges (spec ``outbound`` or ``.harness.json``)."""

    protected_paths: list[str] = Field(default_factory=list)
    """More protected paths, added to the defaults (never replacing them): a name or a
    folder (``deploy/``), ``*`` globs allowed (``infra/*.tf``)."""
    max_file_bytes: int = Field(default=DEFAULT_MAX_FILE_BYTES, gt=0)
    """A changed file larger than this is flagged."""
    max_diff_lines: int = Field(default=DEFAULT_MAX_DIFF_LINES, gt=0)
    """An issue whose diff adds and removes more lines than this waits for a person."""
    max_diff_files: int = Field(default=DEFAULT_MAX_DIFF_FILES, gt=0)
    """An issue that changes more files than this waits for a person."""


def merged(spec: OutboundSettings | None, repo: OutboundSettings | None) -> OutboundSettings:
    """The settings in force: limits from the spec, else the repository, else the defaults;
    protected paths from both (a repository can add protection, never remove the spec's)."""
    base = spec or repo or OutboundSettings()
    extra = [*(spec.protected_paths if spec else []), *(repo.protected_paths if repo else [])]
    return base.model_copy(update={"protected_paths": list(dict.fromkeys(extra))})

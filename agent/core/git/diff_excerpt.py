"""The diff a checkpoint shows (regression_approval, mr_review, issue_closure): cut to a
reviewable size, with the range that shows it whole, so a person is never shown less
unknowingly; and the lines to read whole (very long or padded), counted over all of it."""

from __future__ import annotations

from pathlib import Path

from common.errors import GitError
from common.schemas.checkpoint import DiffExcerpt
from common.workspace import git, long_lines

#: How much of a diff a checkpoint carries (characters); the same size as issue_closure's.
DIFF_LIMIT = 20_000


def excerpt(project: Path, span: str) -> DiffExcerpt | None:
    """``git diff span`` as a checkpoint carries it; ``None`` when git cannot tell.

    ``--text``: a ``*.py -diff`` in the model's .gitattributes would otherwise turn the
    code under review into "Binary files differ".
    """
    try:
        text = git.git(project, "diff", "--text", span)
        stat = git.git(project, "diff", "--stat", span)
    except GitError:
        return None  # no such range (a first commit): the checkpoint shows no diff
    cut_at = DIFF_LIMIT if len(text) > DIFF_LIMIT else None
    return DiffExcerpt(
        stat=stat,
        text=text[:DIFF_LIMIT],
        range=span,
        cut_at=cut_at,
        long_lines=long_lines.find(text),  # the whole diff: a padded line past the cut too
    )


def issue_excerpt(project: Path, shas: list[str]) -> DiffExcerpt | None:
    """The diff of one issue's commits (oldest first)."""
    if not shas:
        return None
    return excerpt(project, f"{shas[0]}~1..{shas[-1]}")

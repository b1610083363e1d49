"""What changed on an issue since a person rejected its closure, for the next closure.

A person who rejected a closure is asked again once another session has worked on the
issue; they need to see what that session changed, not re-read the whole issue. The
rejected attempt comes from the checkpoint log (written by the harness, out of the
model's reach in the sandbox) and the changes from git, so every figure is the
harness's fact, never the model's account of its own work.
"""

from __future__ import annotations

from pathlib import Path

from common.errors import GitError
from common.schemas.checkpoint import ChangesSinceRejection, Checkpoint, IssueClosureCheckpoint
from common.workspace import git, pathnames


def last_rejected_closure(history: list[Checkpoint], iid: int) -> IssueClosureCheckpoint | None:
    """The latest closure of issue ``iid`` in ``history`` if a person rejected it (an
    approved one, or none, means there is no rejection to compare with)."""
    for entry in reversed(history):
        if isinstance(entry, IssueClosureCheckpoint) and entry.context.issue_iid == iid:
            decision = entry.decision
            return entry if decision is not None and not decision.approved else None
    return None


def since_rejection(
    project: Path, history: list[Checkpoint], iid: int, head: str
) -> ChangesSinceRejection | None:
    """The commits and files between the last rejected closure of ``iid`` and ``head``.

    ``None`` when no closure of the issue was rejected, or when git cannot tell (the
    commit that closure showed is gone): the closure then shows the issue's whole diff,
    as a first closure does.
    """
    rejected = last_rejected_closure(history, iid)
    if rejected is None:
        return None
    span = f"{rejected.context.commit_sha}..{head}"
    try:
        commits = git.git(project, "rev-list", "--reverse", span).split()
        names = git.split_nul(git.git_bytes(project, "diff", "--name-only", "-z", span))
        shortstat = git.git(project, "diff", "--shortstat", span).strip()
    except GitError:
        return None
    return ChangesSinceRejection(
        checkpoint_id=rejected.id,
        commit_sha=rejected.context.commit_sha,
        commits=commits,
        files=[pathnames.shown(raw) for raw in names],
        shortstat=shortstat,
    )

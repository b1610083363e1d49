"""What the closure of an issue shows beyond its diff: what changed since a person
rejected it, and what is in the work tree that git does not see.

A person who rejected a closure is asked again once another session has worked on the
issue; they need to see what that session changed, not re-read the whole issue. The
rejected attempt comes from the checkpoint log (written by the harness, out of the
model's reach in the sandbox) and the changes from git, so every figure is the
harness's fact, never the model's account of its own work.

FIFOs, sockets and devices are in no commit and no diff (git lists none of them); the
closure names those in the work tree (:func:`special_files_in`), so a person learns what
a session left there that no review showed.
"""

from __future__ import annotations

from pathlib import Path

from common.errors import GitError
from common.schemas.checkpoint import ChangesSinceRejection, Checkpoint, IssueClosureCheckpoint
from common.workspace import git, pathnames, special_files

MAX_SPECIAL_SHOWN = 20
"""Entries named at closure; the rest are counted."""


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


def special_files_in(work_tree: Path) -> list[str]:
    """The FIFOs, sockets and devices in ``work_tree`` (outside ``.git`` and the harness's
    workspace), one escaped line each, at most :data:`MAX_SPECIAL_SHOWN` and a count."""
    found = special_files.scan(work_tree)
    lines = [item.line() for item in found.found[:MAX_SPECIAL_SHOWN]]
    if len(found.found) > MAX_SPECIAL_SHOWN:
        lines.append(f"… and {len(found.found) - MAX_SPECIAL_SHOWN:,} more")
    if found.cut is not None:
        lines.append(f"(the look for them {found.cut})")
    return lines

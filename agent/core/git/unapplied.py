"""A saved verdict that cannot be applied: which failures those are, and the work kept.

Why: the harness saves its verdict on a coding session (``IssueWork.verdict``) before it
acts on it, and a resumed agent applies the saved verdict again (:mod:`common.schemas.
verdict`). A verdict whose commit git refuses for good (a 140 KB summary passed as one
argument, before the message went by a file; a NUL byte) failed the agent at every
resume, forever. Such a verdict is set aside with one line instead
(:func:`agent.core.stages.coding._apply`): its files are committed under the harness's
own words (:func:`keep_unapplied`), and the issue is left for a person.
"""

from __future__ import annotations

from pathlib import Path

from agent.core.git import commits
from common.errors import GitError

UNAPPLIED_TRAILER = "Harness-Unapplied"
"""The trailer of the commit that keeps the files of a session whose verdict could not be
applied (``3/2``): found again after a kill, so it is made once."""

PASSING_FAILURES = (
    "index.lock",
    "cannot run git",
    "bwrap:",
    "No space left on device",
    "Disk quota exceeded",
    "Cannot allocate memory",
    "Resource temporarily unavailable",
    "Too many open files",
    "Interrupted system call",
    "Input/output error",
)
"""What git (or starting it) says when a commit failed for the machine's sake, not the
commit's: a lock another git holds or a kill left, a full disk, memory, the jail."""


def lasting(error: GitError) -> bool:
    """Whether a commit that failed with ``error`` would fail the same way every time.

    Why: the harness saves its verdict on a session before it commits, and applies it again
    on resume. A commit git refuses for what it holds (a NUL byte in the message, a message
    too long to pass as an argument before the message went by a file) fails again at every
    resume, so such a verdict is set aside instead of replayed forever. A failure for the
    machine's sake (:data:`PASSING_FAILURES`) is worth the resume's retry. Unknown failures
    count as lasting: a wrongly set-aside issue costs a person a look, a wrongly retried one
    a run that never ends. Starting git failing because its arguments were too long
    (``E2BIG``) is lasting, though it is a failure to start.
    """
    text = str(error)
    if "Argument list too long" in text:
        return True
    return not any(marker in text for marker in PASSING_FAILURES)


def keep_unapplied(
    project: Path,
    since: str,
    iid: int,
    session: int,
    files: list[str],
    tested_tree: str | None = None,
) -> str | None:
    """Commit ``files`` of a session whose verdict cannot be applied, under the harness's own
    message (no word of the model's), so the work tree is clean and the work stays in
    history for a person; the commit (found again by its trailer after a kill), or ``None``
    when there is nothing to commit or git refuses this commit too."""
    key = f"{iid}/{session}"
    found = commits.commit_with_trailer(project, since, UNAPPLIED_TRAILER, key)
    if found is not None:
        return found
    text = (
        f"wip(#{iid}): session {session}'s work, its verdict not applied\n\n"
        "The harness could not commit this session's work as it had decided; the issue was "
        f"set aside for a person.\n\n{UNAPPLIED_TRAILER}: {key}\n"
    )
    try:
        return commits.commit(project, files, text, tested_tree=tested_tree)
    except (ValueError, GitError):
        return None

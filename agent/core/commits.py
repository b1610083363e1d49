"""Commits made by the harness: only the session's files, in the structured format.

``feat(#N): <title>`` with a body and the Files / Tests / Issue lines, so that
git history alone tells a new session (or a reviewer) what happened.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from common.paths import WORKSPACE_ROOT_NAME
from common.untrusted_text import printable, printable_line
from common.workspace import git, git_guard


def session_changes(project: Path, touched: set[str], dirty_before: set[str]) -> list[str]:
    """The files this session changed: what the model wrote, plus what appeared since.

    A change the user had before the session (``dirty_before``) is never included
    unless the model itself wrote that file.
    """
    now = set(git.changed_files(project))
    appeared = now - dirty_before
    written = {path for path in touched if path in now}
    return sorted(p for p in appeared | written if not p.startswith(f"{WORKSPACE_ROOT_NAME}/"))


def tests_line(files: list[str], new_files: set[str]) -> str:
    """``added`` / ``updated`` / ``none`` for the commit's Tests line."""
    test_files = [f for f in files if _is_test(f)]
    if any(f in new_files for f in test_files):
        return "added"
    return "updated" if test_files else "none"


SESSION_TRAILER = "Harness-Session"
"""The trailer that names the issue and session a commit belongs to (``3/2``): how a
resumed agent finds a commit it made but did not live to record."""


def message(
    kind: str,
    iid: int,
    title: str,
    body: str,
    files: list[str],
    tests: str,
    session: int | None = None,
) -> str:
    """The structured commit message of the seed (and the harness's session trailer).

    The title, body and tests line come from the model's words (its issue, its summary):
    escaped (:mod:`common.untrusted_text`), so ``git log`` in a person's terminal shows
    them inert, and the title cannot add lines of its own to the subject or trailers.
    """
    title, body, tests = printable_line(title), printable(body), printable_line(tests)
    subject = f"{kind}(#{iid}): {title}"
    trailer = f"\n{SESSION_TRAILER}: {iid}/{session}" if session is not None else ""
    return (
        f"{subject}\n\n{body.strip()}\n\n"
        f"Files: {len(files)} changed\nTests: {tests}\nIssue: #{iid} - {title}{trailer}\n"
    )


def find_session_commit(project: Path, since: str, iid: int, session: int) -> str | None:
    """The commit on ``HEAD`` after ``since`` that carries the trailer of this issue's
    session, if the harness made one (the newest wins)."""
    wanted = f"{iid}/{session}"
    out = git.git(
        project,
        "log",
        f"--format=%H %(trailers:key={SESSION_TRAILER},valueonly,separator=%x2C)",
        f"{since}..HEAD",
    )
    for line in out.splitlines():
        sha, _, value = line.partition(" ")
        if value.strip() == wanted:
            return sha
    return None


def commit(project: Path, files: list[str], text: str, *, allow_empty: bool = False) -> str:
    """Stage exactly ``files`` and commit only them; return the new SHA.

    With ``allow_empty`` and no files, the commit records a verdict with no change
    (work committed as ``wip`` earlier that the harness has now accepted).

    Raises:
        ValueError: ``files`` is empty (git would take that as "everything").
    """
    identity: list[str] = []
    if not git.git(project, "config", "user.email", check=False) and not any(
        key == "user.email" for key, _ in git_guard.user_identity()
    ):
        identity = ["-c", "user.name=coding-harness", "-c", "user.email=harness@localhost"]
    if not files and allow_empty:
        git.git(project, *identity, "commit", "--quiet", "--no-verify", "--allow-empty", "-m", text)
        return git.head_commit(project)
    if not files:
        raise ValueError("commit() needs at least one file")
    known = set(git.git(project, "ls-files", "--", *files).splitlines())
    # A path that is neither on disk nor in the index is a staged deletion: nothing to add.
    to_add = [f for f in files if (project / f).exists() or f in known]
    if to_add:
        git.git(project, "add", "--all", "--", *to_add)
    git.git(project, *identity, "commit", "--quiet", "--no-verify", "-m", text, "--", *files)
    return git.head_commit(project)


def untracked(project: Path) -> set[str]:
    """Paths git does not know yet (for telling added tests from updated ones)."""
    out = git.git(project, "ls-files", "--others", "--exclude-standard")
    return set(out.splitlines())


def _is_test(path: str) -> bool:
    pure = PurePosixPath(path)
    return (
        "tests" in pure.parts
        or "test" in pure.parts
        or pure.name.startswith("test_")
        or pure.stem.endswith(("_test", ".test", ".spec"))
    )

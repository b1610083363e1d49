"""Git through its command line: the one place the harness runs git.

Every failure becomes a :class:`GitError` carrying git's own message. Every call
goes through :mod:`common.workspace.git_guard`: the repository's hooks, fsmonitor,
drivers, pagers, editors and helpers never run as the harness.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from common.errors import GitError
from common.workspace import git_guard


def git(repo: Path, *args: str, check: bool = True, env: Mapping[str, str] | None = None) -> str:
    """Run ``git -C repo ARGS`` (hardened) and return stdout without the trailing newline.

    ``args`` may start with the caller's own ``-c`` settings (an identity); the
    guard's overrides come first, so a caller cannot switch a guard off by accident
    but a deliberate ``-c`` of the harness still applies.
    """
    options, rest = _split_options(args)
    command = [
        "git",
        "-C",
        str(repo),
        *git_guard.override_args(repo, rest[0] if rest else ""),
        *options,
        *git_guard.command_args(rest),
    ]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            check=False,
            env=git_guard.safe_environ(env),
        )
    except OSError as e:
        raise GitError(f"cannot run git: {e.strerror}") from e
    if check and done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        detail = message[-1] if message else f"exit status {done.returncode}"
        raise GitError(f"git {' '.join(args)}: {detail}")
    return done.stdout.rstrip("\n")


def _split_options(args: tuple[str, ...]) -> tuple[list[str], tuple[str, ...]]:
    """The caller's leading ``-c KEY=VALUE`` pairs, and the subcommand with its arguments."""
    index = 0
    while index + 1 < len(args) and args[index] == "-c":
        index += 2
    return list(args[:index]), args[index:]


def is_repository_root(path: Path) -> bool:
    """Whether ``path`` is the top folder of a git work tree."""
    if not path.is_dir():
        return False
    try:
        top = git(path, "rev-parse", "--show-toplevel")
    except GitError:
        return False
    return Path(top).resolve() == path.resolve()


def branch_exists(repo: Path, branch: str) -> bool:
    """Whether a local branch of that name exists."""
    return git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False) != ""


def current_branch(repo: Path) -> str:
    """The checked-out branch (``HEAD`` when detached)."""
    return git(repo, "rev-parse", "--abbrev-ref", "HEAD")


def head_commit(repo: Path) -> str:
    """The full SHA of ``HEAD``."""
    return git(repo, "rev-parse", "HEAD")


def branches(repo: Path) -> list[str]:
    """Local branch names, sorted."""
    out = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads")
    return sorted(line for line in out.splitlines() if line)


def changed_files(repo: Path) -> list[str]:
    """Paths with uncommitted changes (staged, unstaged or untracked), repo-relative."""
    out = git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    paths: list[str] = []
    entries = out.split("\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if not entry:
            continue
        status, path = entry[:2], entry[3:]
        paths.append(path)
        if status[0] in "RC":
            source = entries[index]  # the rename's or copy's source path follows
            index += 1
            if status[0] == "R":
                paths.append(source)  # a rename also deletes its source
    return paths


def exclude_path(repo: Path, pattern: str) -> None:
    """Add ``pattern`` to ``.git/info/exclude`` once, so it is never committed."""
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    exclude = git_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    existing = exclude.read_text() if exclude.exists() else ""
    if pattern not in existing.splitlines():
        prefix = "" if existing.endswith("\n") or not existing else "\n"
        with exclude.open("a") as handle:
            handle.write(f"{prefix}{pattern}\n")


def worktree_fingerprint(repo: Path) -> str:
    """A tree SHA of the work tree as it is now: committed, changed and new files alike.

    Computed in a copy of the index (``GIT_INDEX_FILE``), so the real index is not
    touched. Ignored files do not count. The same content gives the same SHA whether or
    not it was committed since, which is what lets a test run be reused.
    """
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    with tempfile.TemporaryDirectory(prefix="harness-index-") as scratch:
        index = Path(scratch) / "index"
        if (git_dir / "index").exists():
            shutil.copyfile(git_dir / "index", index)  # keeps git's stat cache: fast
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        git(repo, "add", "--all", "--", ".", env=env)
        return git(repo, "write-tree", env=env)

"""Issue worktrees: one checkout per issue worked in parallel, merged into the feature branch.

Why worktrees: issues worked at the same time must not share a work tree (one session's
half-written file would fail the other's tests), yet they share the repository's objects
and branches, so a finished issue is merged with plain git. Each issue gets its own
branch off the feature branch, checked out in a folder of its own; the main work tree
keeps the feature branch, and merges happen there.

Every git here runs through :mod:`common.workspace.git` (guarded and jailed). A worktree's
``.git`` is a file naming its git folder; :mod:`common.workspace.gitdirs` reads it
without running git. The harness creates the folder and the branch, so it names both;
nothing here is derived from what a session wrote, except the merge itself, whose
conflicts are reported as escaped names and a bounded excerpt.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from common.errors import GitError
from common.untrusted_text import printable
from common.workspace import git, gitdirs, pathnames

_ADMINISTRATION = threading.RLock()
"""Held by every add, remove, prune and list of worktrees in this process. Git writes a
new worktree's entry under ``.git/worktrees/`` file by file with no lock of its own, and
``git worktree list`` fails on an entry half made ("failed to read …/commondir"): slots
run their git in threads at the same time, so one slot's baseline being added must not
meet another's listing."""

CONFLICT_EXCERPT_CHARS = 8_000
"""How much of the conflicted diff a merge outcome carries (the session's feedback)."""


@dataclass(frozen=True)
class MergeOutcome:
    """What merging an issue branch into the feature branch did."""

    merged: bool
    commit: str | None = None
    """The merge commit on the feature branch (``None`` when it conflicted)."""
    conflicts: tuple[str, ...] = ()
    """The conflicted paths, escaped for showing."""
    excerpt: str = ""
    """The conflicted diff (``git diff`` during the merge), escaped, at most
    :data:`CONFLICT_EXCERPT_CHARS` characters; ``excerpt_cut`` says whether it was cut."""
    excerpt_cut: bool = False


def add(repo: Path, path: Path, branch: str, base: str) -> None:
    """Check out a new ``branch`` from ``base`` at ``path`` (a folder that must not exist).

    An existing ``branch`` (a resumed agent's) is checked out as it is, not reset.
    """
    if path.exists():
        raise GitError(f"worktree folder already exists: {pathnames.shown(bytes(path))}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _ADMINISTRATION:
        if git.branch_exists(repo, branch):
            args = ["worktree", "add", str(path), branch]
        else:
            args = ["worktree", "add", "-b", branch, str(path), base]
        git.git(repo, *args, writable=(path.parent,))


def add_detached(repo: Path, path: Path, commit: str) -> None:
    """Check out ``commit`` at ``path`` (a folder that must not exist) on no branch: a
    scratch copy the harness tests and removes, never worked in."""
    if path.exists():
        raise GitError(f"worktree folder already exists: {pathnames.shown(bytes(path))}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _ADMINISTRATION:
        git.git(repo, "worktree", "add", "--detach", str(path), commit, writable=(path.parent,))


def remove(repo: Path, path: Path) -> None:
    """Remove the worktree at ``path`` (whatever it holds) and forget it; absent: nothing.

    The harness never locks a worktree, so a lock is git's own "initializing" left by an
    add a kill cut short: ``--force`` twice removes it all the same. Such an add may not
    have written the folder's ``.git`` file yet, and git refuses to remove what it cannot
    validate; the harness then deletes its own folder itself (never following a link).

    Git's jail shows only the repository and the folders named to it, and a prune that
    cannot see a worktree forgets it: so the harness prunes only when ``path`` itself
    is gone but still known (a removal or an add cut short), with the worktrees' folder
    in view, never as a habit that would forget another slot's worktree or the user's own.
    """
    with _ADMINISTRATION:
        if path.exists():
            try:
                git.git(
                    repo,
                    "worktree",
                    "remove",
                    "--force",
                    "--force",
                    str(path),
                    writable=(path.parent,),
                )
                return
            except GitError:
                if (path / ".git").exists():
                    raise
                shutil.rmtree(path)  # an add cut before its .git file: nothing to validate
        known = {entry.path.absolute(): entry for entry in _entries(repo)}
        entry = known.get(path.absolute())
        if entry is not None:
            area = (path.parent,) if path.parent.is_dir() else ()
            if entry.locked:  # a locked entry is never pruned
                git.git(repo, "worktree", "unlock", str(path), writable=area)
            git.git(repo, "worktree", "prune", writable=area)


@dataclass(frozen=True)
class _Entry:
    """One linked worktree as ``git worktree list --porcelain`` describes it."""

    path: Path
    locked: bool


def _entries(repo: Path) -> list[_Entry]:
    """The linked worktrees git knows for ``repo`` (the main work tree excluded)."""
    with _ADMINISTRATION:
        out = git.git_bytes(repo, "worktree", "list", "--porcelain", "-z")
    entries: list[_Entry] = []
    for record in out.split(b"\0\0"):
        fields = record.strip(b"\0").split(b"\0")
        if not fields[0].startswith(b"worktree "):
            continue
        path = Path(fields[0].removeprefix(b"worktree ").decode(errors="surrogateescape"))
        locked = any(field == b"locked" or field.startswith(b"locked ") for field in fields)
        entries.append(_Entry(path, locked))
    main = repo.resolve()
    return [entry for entry in entries if entry.path.resolve() != main]


def listed(repo: Path) -> list[Path]:
    """The linked worktrees git knows for ``repo`` (the main work tree excluded)."""
    return [entry.path for entry in _entries(repo)]


def ready(repo: Path) -> list[Path]:
    """The linked worktrees whose making finished: not locked (the harness locks none; git
    locks one while it adds it) and with their ``.git`` file. Another one is what a kill
    left of an add, to be removed and made again, never worked in."""
    return [
        entry.path
        for entry in _entries(repo)
        if not entry.locked and (entry.path / ".git").is_file()
    ]


def merge(repo: Path, branch: str, message: str, identity: Sequence[str] = ()) -> MergeOutcome:
    """Merge ``branch`` into the branch checked out in ``repo`` with a merge commit.

    On a conflict the merge is aborted (``repo`` is left as it was) and the outcome
    names the conflicted paths and carries the conflicted diff, for the session that
    redoes the issue. ``identity`` is the caller's ``-c user.name=… -c user.email=…``.
    """
    git.git_bytes(
        repo, *identity, "merge", "--no-ff", "--no-edit", "-m", message, branch, check=False
    )
    conflicted = git.split_nul(git.git_bytes(repo, "diff", "--name-only", "-z", "--diff-filter=U"))
    if not conflicted:
        if git.git(repo, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False):
            # Stopped without a conflicted path (a file in the way): nothing was merged.
            git.git(repo, "merge", "--abort")
            raise GitError(f"git merge {branch}: stopped without a conflict; aborted")
        if not is_merged(repo, branch):
            raise GitError(f"git merge {branch}: the branch is not in HEAD after the merge")
        return MergeOutcome(merged=True, commit=git.head_commit(repo))
    diff = git.git_bytes(repo, "diff", "--text").decode(errors="replace")
    git.git(repo, "merge", "--abort")
    cut = len(diff) > CONFLICT_EXCERPT_CHARS
    excerpt = printable(diff[:CONFLICT_EXCERPT_CHARS])
    return MergeOutcome(
        merged=False,
        conflicts=tuple(pathnames.shown(path) for path in conflicted),
        excerpt=excerpt,
        excerpt_cut=cut,
    )


def clear_stale_lock(tree: Path, made_before: float) -> Path | None:
    """Remove the index lock of ``tree``'s own git folder when it was made before
    ``made_before`` (a time stamp); the lock removed, or ``None``.

    Why: the harness's git dies with the agent, so a kill while one slot's git held
    the index leaves ``index.lock`` behind, and every later git in that tree would fail
    ("another git process seems to be running"). Called when an agent starts its slots,
    before any git of its own runs: a lock older than that start is a dead process's.
    """
    folders = gitdirs.git_folders(tree)
    if folders is None:
        return None
    lock = folders.git_dir / "index.lock"
    try:
        if lock.is_symlink() or lock.stat().st_mtime >= made_before:
            return None
        lock.unlink()
    except FileNotFoundError:
        return None
    return lock


def settle_cut_merge(repo: Path) -> str | None:
    """Put right a merge a kill cut short in ``repo`` (``MERGE_HEAD`` still there); what
    was done, or ``None`` when no merge was in progress.

    Why: the harness's git dies with the agent, so a kill can stop ``git merge`` at any
    point, and the next merge would be refused ("you have not concluded your merge").
    Killed after the merge commit was made: only git's note of the merge is left, and is
    forgotten (``--quit``: the commit, the index and the files stay). Killed before it:
    the merge is aborted, the feature branch as it was, and the caller merges again.
    """
    merging = git.git(repo, "rev-parse", "-q", "--verify", "MERGE_HEAD", check=False)
    if not merging:
        return None
    if git.git(repo, "merge-base", merging, "HEAD", check=False) == merging:
        git.git(repo, "merge", "--quit")
        return "its merge commit was made; git's note of the merge is dropped"
    git.git(repo, "merge", "--abort")
    return "it was aborted; the merge is made again"


def is_merged(repo: Path, branch: str) -> bool:
    """Whether ``branch``'s tip is already in HEAD (a merge done before a kill)."""
    tip = git.git(repo, "rev-parse", "--verify", f"{branch}^{{commit}}")
    return git.git(repo, "merge-base", tip, "HEAD", check=False) == tip


def restart_on(path: Path, base: str) -> None:
    """Put the worktree at ``path`` back on ``base`` (the updated feature branch), its own
    commits dropped and every untracked file gone: the issue is redone on top of it."""
    git.git(path, "reset", "--hard", base)
    git.git(path, "clean", "-fdx", "-q")

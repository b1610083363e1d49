"""Where a repository's git folders are, read from its ``.git`` without running git.

A linked worktree (and a submodule checkout) has a ``.git`` *file* naming its git folder
(``gitdir: …``), which in turn names the shared one (``commondir``). The sandbox shows
them read-only and the harness's git jail binds them; both need to know them before any
git runs, and asking git would mean running it unjailed on the repository. The format
is two one-line files, so it is read here, the way git reads it: a relative ``gitdir``
is relative to the worktree, a relative ``commondir`` to the git folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from common import safe_read

MAX_POINTER_BYTES = 4096
"""A ``.git`` or ``commondir`` file longer than this is not one git wrote."""


@dataclass(frozen=True)
class GitFolders:
    """A repository's ``.git`` entry, its own git folder and the shared one."""

    dot_git: Path
    git_dir: Path
    common_dir: Path

    def outside(self, repo: Path) -> tuple[Path, ...]:
        """The git folders that do not lie inside ``repo`` (a linked worktree's)."""
        inside = repo.resolve()
        found: list[Path] = []
        for path in (self.git_dir, self.common_dir):
            if path != inside and inside not in path.parents and path not in found:
                found.append(path)
        return tuple(found)


def git_folders(repo: Path) -> GitFolders | None:
    """``repo``'s git folders; ``None`` when it has no ``.git`` or an unreadable one."""
    dot_git = repo / ".git"
    if dot_git.is_dir():
        resolved = dot_git.resolve()
        return GitFolders(dot_git, resolved, resolved)
    pointer = _pointer(dot_git, "gitdir:")
    if pointer is None:
        return None
    git_dir = (repo / pointer).resolve()  # an absolute pointer replaces repo
    common = _pointer(git_dir / "commondir", "")
    common_dir = (git_dir / common).resolve() if common else git_dir
    return GitFolders(dot_git, git_dir, common_dir)


def _pointer(path: Path, prefix: str) -> str | None:
    """The path a one-line pointer file names after ``prefix``; ``None`` if it is not one
    (a FIFO, link or device is never opened: :mod:`common.safe_read`)."""
    try:
        raw = safe_read.read_bytes(path, MAX_POINTER_BYTES)
    except OSError:
        return None
    try:
        text = raw.decode().strip()
    except UnicodeDecodeError:
        return None
    if not text.startswith(prefix) or "\n" in text or "\0" in text:
        return None
    named = text.removeprefix(prefix).strip()
    return named or None

"""Entries of a work tree that are neither files, folders nor links: FIFOs, sockets,
devices. git lists none of them, and git itself can hang on some.

Why: a session can leave such entries in the work tree (``mkfifo``, a socket a server
bound). git commits only files and links, so they are in no commit and no diff, and a
person reviewing the issue would never learn of them: they are named at issue_closure
(:func:`scan`). Worse, git opens ``.gitignore``, ``.gitattributes`` and ``.mailmap``
from the work tree with a plain, blocking ``open``: a FIFO of one of those names made
every ``git status``, ``git diff`` or ``git log`` of the harness wait for a writer that
never comes (measured with git 2.39: the agent hung after the session, at every
resume). A link of those names git refuses to follow itself (since 2.32). So after
every session and when the agent starts, such an entry is removed (:func:`defuse`): it
holds no content, git could never commit it, and nothing is lost.

The walk never follows a link, never opens an entry, skips every ``.git`` and the
harness's workspace, and is bounded in entries and time: a tree of a million files
cannot hold the agent.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from common import safe_read
from common.paths import WORKSPACE_ROOT_NAME
from common.workspace import pathnames

GIT_READS = frozenset({b".gitignore", b".gitattributes", b".gitmodules", b".mailmap"})
"""Names git opens from the work tree on its own (a FIFO of one blocks it)."""
MAX_ENTRIES = 2_000_000
"""Folder entries one walk looks at, at most."""
BUDGET_S = 20.0
"""Seconds one walk may take, at most."""
_CHECK_EVERY = 4096
_SKIPPED = frozenset({b".git"})


@dataclass(frozen=True)
class Special:
    """One entry that is not a file, a folder or a link."""

    path: bytes
    """Relative to the work tree, as git would name it (bytes: the model chose it)."""
    what: str
    """``a FIFO``, ``a socket``, ``a character device``…"""

    def line(self) -> str:
        """One line for people: the name escaped, and what it is."""
        return f"{pathnames.shown(self.path)} ({self.what})"


@dataclass(frozen=True)
class Scan:
    """What a walk found, and why it stopped early (``None``: it saw everything)."""

    found: list[Special] = field(default_factory=list)
    cut: str | None = None


def scan(root: Path, *, max_entries: int = MAX_ENTRIES, budget_s: float = BUDGET_S) -> Scan:
    """Every FIFO, socket and device under ``root`` (links not followed)."""
    deadline = time.monotonic() + budget_s
    found: list[Special] = []
    folders: list[bytes] = [b""]
    seen = 0
    top = os.fsencode(root)
    while folders:
        relative = folders.pop()
        try:
            entries = list(os.scandir(top + b"/" + relative if relative else top))
        except OSError:
            continue  # gone, or not readable: nothing git could list there either
        for entry in entries:
            seen += 1
            if seen > max_entries:
                return Scan(found, f"stopped after {max_entries:,} entries")
            if seen % _CHECK_EVERY == 0 and time.monotonic() > deadline:
                return Scan(found, f"stopped after {budget_s:g} s")
            name = entry.name
            path = relative + b"/" + name if relative else name
            if name in _SKIPPED or path == WORKSPACE_ROOT_NAME.encode():
                continue
            what = _special(entry)
            if what is not None:
                found.append(Special(path, what))
            elif entry.is_dir(follow_symlinks=False):
                folders.append(path)
    found.sort(key=lambda item: item.path)
    return Scan(found)


def _special(entry: os.DirEntry[bytes]) -> str | None:
    """What ``entry`` is when it is not a file, a folder or a link."""
    if entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False):
        return None
    if entry.is_symlink():
        return None
    try:
        mode = entry.stat(follow_symlinks=False).st_mode
    except OSError:
        return None
    return None if stat.S_ISLNK(mode) else safe_read.kind_of(mode)


def defuse(root: Path) -> list[str]:
    """Remove the entries git would block on (a FIFO or other non-file named like a file
    git reads from the work tree); one line for each, for the log."""
    lines: list[str] = []
    result = scan(root)
    for item in result.found:
        if item.path.rsplit(b"/", 1)[-1] not in GIT_READS:
            continue
        try:
            (root / os.fsdecode(item.path)).unlink()
        except OSError as e:
            lines.append(f"could not remove {item.line()}, which git would wait on: {e.strerror}")
            continue
        lines.append(f"removed {item.line()}: git reads a file of that name and would wait forever")
    if result.cut is not None:
        lines.append(f"the look for FIFOs git would wait on {result.cut}")
    return lines

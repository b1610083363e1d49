"""What a gate wrote, in words a person reads at issue_closure, and the tested tree kept.

A gate's writes come from its overlay's upper folder (:func:`agent.sandbox.overlay.listing`)
or, where it ran on the work tree itself, from the fingerprint before and after
(:mod:`agent.core.gates.gate_tree`) and the ignored files whose inode changed during it
(:mod:`agent.core.git.hidden_writes`). They are sorted three ways:

- **changed**: paths of the tested tree (everything git does not ignore, judged by the
  work tree's own ignore rules: a ``.gitignore`` the gate wrote counts for nothing). A
  finding: the closure waits for a person, and the commit holds the tested content.
- **ignored**: files the project ignores, named by folder (the reviewer knows a gate
  left them; under the overlay they are gone with it).
- **caches**: files under ``__pycache__``, ``.pytest_cache``, ``.mypy_cache`` or
  ``.ruff_cache``, counted in the log only. Every run of pytest, mypy or ruff writes
  them, so naming them would bury the findings that matter; none can reach a commit (a
  cache git does not ignore is a changed path put back like any other, and the gates
  read bytecode from a fresh prefix).
"""

from __future__ import annotations

import os
import stat
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from agent.core.gates import gate_tree
from agent.core.git import hidden_writes
from agent.sandbox.overlay import Listing, UpperEntry
from common.errors import GitError
from common.schemas.gates import GateWrites
from common.workspace import git, pathnames

SHOWN = 20
"""Lines of each list at most; the rest is counted on one more line."""


def settle(work_tree: Path, tested: str, since_ns: int, seen: Listing | None) -> GateWrites:
    """After a gate that started on the tree ``tested`` at ``since_ns``: compare the work
    tree's fingerprint with it, put back what differs, and say what the gate wrote.

    ``seen``: the gate's overlay listing (``None``: it ran on the work tree itself).
    """
    entries = list(seen.entries) if seen is not None else []
    now = git.worktree_fingerprint(work_tree)
    restored = now != tested
    kept = True
    if restored:
        changes = gate_tree.diff(work_tree, tested, now)
        gate_tree.restore(work_tree, changes)
        known = {entry.path for entry in entries}
        found = gate_tree.entries(work_tree, changes)
        entries += [entry for entry in found if entry.path not in known]
        kept = git.worktree_fingerprint(work_tree) == tested
    ignored: list[bytes] = []
    if seen is None:
        ignored = hidden_writes.written_since(work_tree, since_ns)
    writes = summarize(
        work_tree,
        entries,
        more=seen is not None and seen.more,
        known_ignored=ignored,
        restored=restored,
    )
    writes.overlay = seen is not None
    if not kept:
        line = "(the harness could not put the tested content back: nothing untested is committed)"
        writes.changed.append(line)
    return writes


def summarize(
    work_tree: Path,
    entries: list[UpperEntry],
    *,
    more: bool = False,
    known_ignored: Iterable[bytes] = (),
    restored: bool = False,
) -> GateWrites:
    """Sort a gate's ``entries`` into changed, ignored and caches (see the module)."""
    caches = [entry for entry in entries if in_cache(entry.path)]
    rest = [entry for entry in entries if not in_cache(entry.path)]
    keys = {entry.path: ignore_key(work_tree, entry.path) for entry in rest}
    ignored_keys = check_ignored(work_tree, list(dict.fromkeys(keys.values())))
    changed = [entry for entry in rest if keys[entry.path] not in ignored_keys]
    # A folder that replaced an ignored one is named by the files in it.
    ignored = [
        entry.path for entry in rest if keys[entry.path] in ignored_keys and entry.kind != "folder"
    ]
    lines = cut([entry.line() for entry in changed], "path(s)")
    if more:
        lines.append("… and more: the gate changed more paths than the harness lists")
    return GateWrites(
        changed=lines,
        ignored=by_folder([*ignored, *known_ignored]),
        caches=len(caches),
        restored=restored,
    )


def in_cache(raw: bytes) -> bool:
    """Whether ``raw`` lies in a test tool's cache folder."""
    return bool(hidden_writes.GATE_CACHES.intersection(raw.split(b"/")))


def ignore_key(work_tree: Path, raw: bytes) -> bytes:
    """The path whose ignore rule decides for ``raw``: itself, or the first of its
    folders that is no real folder in the work tree (a link or file the gate replaced
    by a folder; git refuses to look beyond a link, and what is there is the gate's)."""
    parts = raw.split(b"/")
    folder = work_tree
    for depth, part in enumerate(parts[:-1], start=1):
        folder = folder / os.fsdecode(part)
        try:
            info = folder.lstat()
        except OSError:
            return raw  # a folder the gate made: its files are judged by their own names
        if not stat.S_ISDIR(info.st_mode):
            return b"/".join(parts[:depth])
    return raw


def check_ignored(work_tree: Path, paths: list[bytes]) -> set[bytes]:
    """Which of ``paths`` the work tree's ignore rules ignore (a tracked path never is).

    When git cannot say (a path inside a nested repository), none is: each counts as a
    change of the tested tree, which a person then sees.
    """
    if not paths:
        return set()
    try:
        out = git.git_bytes(
            work_tree, "check-ignore", "-z", "--stdin", check=False, stdin=git.nul_list(paths)
        )
    except GitError:
        return set()
    return set(git.split_nul(out))


def by_folder(paths: Iterable[bytes]) -> list[str]:
    """Ignored files named by their top folder (``build/: 3 file(s)``), a file at the top
    by itself; escaped, sorted, at most :data:`SHOWN` lines (pure)."""
    counts: Counter[str] = Counter()
    for raw in paths:
        top, slash, _rest = raw.partition(b"/")
        counts[pathnames.shown(top) + ("/" if slash else "")] += 1
    lines = [
        f"{name}: {count} file(s)" if name.endswith("/") else name
        for name, count in sorted(counts.items())
    ]
    return cut(lines, "folder(s) or file(s)")


def cut(lines: list[str], what: str) -> list[str]:
    """``lines`` up to :data:`SHOWN`, and one that counts the rest (pure)."""
    if len(lines) <= SHOWN:
        return lines
    return [*lines[:SHOWN], f"… and {len(lines) - SHOWN} more {what}"]


def log_line(name: str, writes: GateWrites) -> str | None:
    """One line for the agent's log about what the gate ``name`` wrote (``None``: nothing)."""
    parts: list[str] = []
    if writes.changed:
        parts.append(f"changed {len(writes.changed)} path(s) of the tested tree (never committed)")
    if writes.ignored:
        parts.append(f"wrote ignored files in {len(writes.ignored)} place(s)")
    if writes.caches:
        parts.append(f"wrote {writes.caches} file(s) in tool caches")
    if not parts:
        return None
    if writes.overlay:
        where = "all discarded with its overlay"
    elif writes.restored:
        where = "the tested content is put back"
    else:
        where = "left in place (the tested tree is unchanged)"
    return f"gate {name} {'; '.join(parts)}: {where}"

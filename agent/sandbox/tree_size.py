"""How much a work tree takes on disk: a bounded walk that never follows a link.

Standalone on purpose (standard library only): :mod:`agent.sandbox.enter` runs it, with
``python -I -S``, beside every session and gate; the agent runs it for the baseline and
for what it tells the next session.

What counts is what the disk gives the tree: ``st_blocks`` of every entry (a sparse file
counts what it holds, a folder its own blocks), a file with several links once. A link is
never followed, a folder on another file system never entered, and the harness's own
folders at the top (``.git``, the workspace) are not the project's to grow. The walk stops
at its deadline: a partial count is a floor, so it can prove a tree too big, never small.
"""

from __future__ import annotations

import heapq
import os
import stat
import time

SKIPPED_AT_TOP = frozenset({".git", ".claude-agent"})
"""The repository (read-only in the sandbox) and the harness's workspace."""
_CHECK_EVERY = 256
"""Entries between two looks at the clock."""


class TreeSize:
    """What one walk found."""

    def __init__(self) -> None:
        self.kb = 0
        """Blocks counted, in KiB (a floor when the walk was cut short)."""
        self.complete = True
        """The walk saw every entry before its deadline."""
        self.big: list[tuple[int, bytes]] = []
        """(size in bytes, path) of the files at least the walk's ``big_bytes``, written
        since its ``since_ns``."""
        self.largest: list[tuple[int, bytes]] = []
        """(KiB, path) of the largest files changed since ``since_ns``, largest first."""


def scan(
    root: str,
    *,
    deadline_s: float,
    since_ns: int | None = None,
    big_bytes: int | None = None,
    largest: int = 0,
    stop_above_kb: int | None = None,
) -> TreeSize:
    """Walk ``root`` for at most ``deadline_s`` seconds.

    ``big_bytes``: note files at least that big whose content changed since ``since_ns``
    (a write cut at the file-size limit leaves one exactly that big). ``largest``: keep
    that many of the largest files changed (``st_ctime``, which no process can set back)
    since ``since_ns``. ``stop_above_kb``: stop as soon as the count is above it (the
    budget is already exceeded; the rest would not change the answer).
    """
    walk = _Walk(since_ns, big_bytes, largest)
    ends = time.monotonic() + deadline_s
    try:
        device = os.lstat(root).st_dev
    except OSError:
        return walk.found
    top = os.fsencode(root)
    pending, count = [top], 0
    while pending:
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue  # gone meanwhile, or not readable: nothing to count
        for entry in entries:
            count += 1
            if count % _CHECK_EVERY == 0 and time.monotonic() > ends:
                return walk.done(complete=False)
            if folder == top and os.fsdecode(entry.name) in SKIPPED_AT_TOP:
                continue
            if walk.count(entry) and walk.descends(entry, device):
                pending.append(entry.path)
            if stop_above_kb is not None and walk.found.kb > stop_above_kb:
                return walk.done(complete=False)
    return walk.done(complete=True)


class _Walk:
    """What a walk has counted so far."""

    def __init__(self, since_ns: int | None, big_bytes: int | None, largest: int) -> None:
        self.found = TreeSize()
        self.since_ns = since_ns
        self.big_bytes = big_bytes
        self.largest = largest
        self.seen: set[tuple[int, int]] = set()
        self.kept: list[tuple[int, bytes]] = []

    def count(self, entry: os.DirEntry[bytes]) -> bool:
        """Count ``entry`` (once per inode); whether it was counted."""
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return False  # gone meanwhile
        if info.st_nlink > 1 and not stat.S_ISDIR(info.st_mode):
            if (info.st_dev, info.st_ino) in self.seen:
                return False
            self.seen.add((info.st_dev, info.st_ino))
        self.found.kb += info.st_blocks // 2
        if stat.S_ISREG(info.st_mode) and self.since_ns is not None:
            self._note(entry.path, info, self.since_ns)
        return True

    def descends(self, entry: os.DirEntry[bytes], device: int) -> bool:
        """Whether the walk enters ``entry``: a folder (never a link) on the tree's device."""
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return False
        return stat.S_ISDIR(info.st_mode) and info.st_dev == device

    def _note(self, path: bytes, info: os.stat_result, since_ns: int) -> None:
        big = self.big_bytes
        if big is not None and info.st_size >= big and info.st_mtime_ns >= since_ns:
            self.found.big.append((info.st_size, path))
        if self.largest and info.st_ctime_ns >= since_ns:
            item = (info.st_blocks // 2, path)
            if len(self.kept) < self.largest:
                heapq.heappush(self.kept, item)
            else:
                heapq.heappushpop(self.kept, item)

    def done(self, *, complete: bool) -> TreeSize:
        self.found.complete = complete
        self.found.largest = sorted(self.kept, reverse=True)
        return self.found

"""A changed file's facts, read from the work tree (after a session) or from git's
objects (the branch before the push).

Nothing here follows a link or runs anything the model wrote: links are read with
``readlink``, files with ``lstat`` and a bounded read that never waits on a FIFO
(:mod:`common.safe_read`), objects with a few ``cat-file`` batches for the whole change
(hardened, jailed: :mod:`common.workspace.git`, :mod:`.blobs`). Both readers yield one
change at a time, so the contents of a large change are never all in memory at once.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from agent.core.outbound import blobs
from agent.core.outbound.classify import BINARY_SNIFF, FileFacts, Kind
from common import safe_read
from common.workspace import git, pathnames

EXECUTABLE_MODE = b"100755"
LINK_MODE = b"120000"
GITLINK_MODE = b"160000"
NO_MODE = b"000000"
#: Modes whose object is not read as a file: deleted, a link, a nested repository's commit.
_NOT_FILES = (NO_MODE, LINK_MODE, GITLINK_MODE)
_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}
BATCH_BYTES = 64 << 20
"""The most content one ``cat-file --batch`` brings into memory."""


@dataclass(frozen=True)
class Observed:
    """A change's facts and the content to scan (``None``: too large, binary, or not a
    file), with the git object it is, where known."""

    facts: FileFacts
    content: bytes | None
    blob: str | None = None
    unread: str | None = None
    """Why a file's content could not be read (a FIFO, a file swapped since it was
    listed, one the harness may not read): it is then never judged clean."""


def from_work_tree(project: Path, paths: list[str], max_bytes: int) -> Iterator[Observed]:
    """Each path as the session left it in the work tree, against ``HEAD``."""
    before = _head_modes(project, paths)
    for path in paths:
        yield _observe(project, path, before.get(path), max_bytes)


def _observe(project: Path, path: str, old_mode: bytes | None, max_bytes: int) -> Observed:
    where = project / path
    was_executable = old_mode == EXECUTABLE_MODE
    try:
        info = where.lstat()
    except FileNotFoundError:
        return Observed(FileFacts(path, Kind.DELETED, was_executable=was_executable), None)
    if stat.S_ISLNK(info.st_mode):
        target = os.fsencode(where.readlink())
        return Observed(FileFacts(path, Kind.SYMLINK, len(target), target), None)
    if stat.S_ISDIR(info.st_mode):
        return Observed(FileFacts(path, Kind.GITLINK), None)
    try:
        with safe_read.opened(where, sys.maxsize) as (fd, opened):
            size = opened.st_size
            content = _read(fd, max_bytes + 1 if size <= max_bytes else BINARY_SNIFF)
    except OSError as e:  # a FIFO or socket (never opened), swapped, or not readable
        why = e.what if isinstance(e, safe_read.Refused) else f"not readable ({e.strerror})"
        return Observed(FileFacts(path, Kind.FILE, was_executable=was_executable), None, None, why)
    facts = FileFacts(
        path,
        Kind.FILE,
        size,
        content[:BINARY_SNIFF],
        executable=bool(opened.st_mode & stat.S_IXUSR),
        was_executable=was_executable,
    )
    return Observed(facts, content if size <= max_bytes else None)


def _read(fd: int, wanted: int) -> bytes:
    """Up to ``wanted`` bytes of the open file."""
    chunks: list[bytes] = []
    while wanted > 0 and (chunk := os.read(fd, min(wanted, 1 << 20))):
        chunks.append(chunk)
        wanted -= len(chunk)
    return b"".join(chunks)


def _head_modes(project: Path, paths: list[str]) -> dict[str, bytes]:
    """Each path's mode in ``HEAD`` (absent: new)."""
    if not paths:
        return {}
    out = git.git_bytes(project, "ls-tree", "-z", "HEAD", "--", *paths, env=_LITERAL, check=False)
    modes: dict[str, bytes] = {}
    for entry in git.split_nul(out):
        meta, _, raw = entry.partition(b"\t")
        modes[pathnames.key(raw)] = meta.split(b" ")[0]
    return modes


def from_branch(project: Path, base: str, tip: str, max_bytes: int) -> Iterator[Observed]:
    """Every path the branch changes from where it left ``base`` (``base...tip``), as
    committed: what a push would publish."""
    out = git.git_bytes(
        project, "diff", "--raw", "--no-abbrev", "-z", "--no-renames", f"{base}...{tip}"
    )
    fields = git.split_nul(out)
    changes = [_change(meta, raw) for meta, raw in zip(fields[0::2], fields[1::2], strict=False)]
    # A few git processes for every blob of the change, not two per blob: sizes, then the
    # contents of the links and of the files within the limit, a batch at a time.
    size_of = blobs.sizes(project, [c.blob for c in changes if c.new_mode not in _NOT_FILES])
    for batch in _batches(changes, size_of, max_bytes):
        wanted = [c.blob for c in batch if _wanted(c, size_of, max_bytes)]
        content_of = blobs.contents(project, wanted)
        for change in batch:
            yield _from_object(change, size_of, content_of, max_bytes)
    # The harness's diff never looks into (nor lists) nested repositories: compare trees.
    fork = git.git(project, "merge-base", base, tip).strip()
    before = _gitlinks_of(project, fork)
    for path, name in sorted(_gitlinks_of(project, tip).items()):
        if before.get(path) != name:
            yield Observed(FileFacts(path, Kind.GITLINK), None, name)


def _wanted(change: _Change, size_of: dict[str, int], max_bytes: int) -> bool:
    """Whether the change's object is read: a link's target, a file within the limit."""
    if change.new_mode == LINK_MODE:
        return True
    return change.new_mode not in _NOT_FILES and size_of[change.blob] <= max_bytes


def _batches(
    changes: list[_Change], size_of: dict[str, int], max_bytes: int
) -> Iterator[list[_Change]]:
    """``changes`` in runs whose wanted contents stay within :data:`BATCH_BYTES`."""
    batch: list[_Change] = []
    held = 0
    for change in changes:
        size = size_of.get(change.blob, 0) if _wanted(change, size_of, max_bytes) else 0
        if batch and held + size > BATCH_BYTES:
            yield batch
            batch, held = [], 0
        batch.append(change)
        held += size
    if batch:
        yield batch


def _gitlinks_of(project: Path, rev: str) -> dict[str, str]:
    """Every gitlink (mode 160000) in ``rev``'s tree: path → the commit it names."""
    out = git.git_bytes(project, "ls-tree", "-r", "-z", "--full-tree", rev)
    found: dict[str, str] = {}
    for entry in git.split_nul(out):
        meta, _, raw = entry.partition(b"\t")
        parts = meta.split(b" ")
        if parts[0] == GITLINK_MODE and len(parts) >= 3:
            found[pathnames.key(raw)] = parts[2].decode()
    return found


class _Change(NamedTuple):
    """One line of ``git diff --raw``: the path, its modes before and after, its object."""

    path: str
    old_mode: bytes
    new_mode: bytes
    blob: str


def _change(meta: bytes, raw: bytes) -> _Change:
    old_mode, new_mode, _old, new_blob = meta.lstrip(b":").split(b" ")[:4]
    return _Change(pathnames.key(raw), old_mode, new_mode, new_blob.decode())


def _from_object(
    change: _Change, size_of: dict[str, int], content_of: dict[str, bytes], max_bytes: int
) -> Observed:
    """One change's facts from the sizes and contents read for the whole change."""
    path, old_mode, new_mode, name = change
    was_executable = old_mode == EXECUTABLE_MODE
    if new_mode == NO_MODE:
        return Observed(FileFacts(path, Kind.DELETED, was_executable=was_executable), None)
    if new_mode == GITLINK_MODE:
        return Observed(FileFacts(path, Kind.GITLINK), None, name)
    if new_mode == LINK_MODE:
        target = content_of[name]
        return Observed(FileFacts(path, Kind.SYMLINK, len(target), target), None, name)
    size = size_of[name]
    content = content_of[name] if size <= max_bytes else b""
    facts = FileFacts(
        path,
        Kind.FILE,
        size,
        content[:BINARY_SNIFF],
        executable=new_mode == EXECUTABLE_MODE,
        was_executable=was_executable,
    )
    return Observed(facts, content if size <= max_bytes else None, name)


def blob_of(project: Path, rev: str, path: str) -> str | None:
    """The object ``path`` is at ``rev`` (``None``: not there)."""
    out = git.git_bytes(project, "ls-tree", "-z", rev, "--", path, env=_LITERAL, check=False)
    for entry in git.split_nul(out):
        meta = entry.partition(b"\t")[0].split(b" ")
        if len(meta) >= 3:
            return meta[2].decode()
    return None

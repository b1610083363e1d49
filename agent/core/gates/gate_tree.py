"""The tested tree, kept: what a gate changed in the work tree, and its content put back.

Why: the verdict of a gate (the tests, a quality check, the replay) is about the tree it
ran on, and that tree is what the harness commits. Where the gate sees the work tree as
an overlay (:mod:`agent.sandbox.overlay`) it cannot change it; where none can be made
(the kernel refuses it, or ``"sandbox": false``), the gate runs on the work tree itself.
There the tree's fingerprint (:func:`common.workspace.git.worktree_fingerprint`, a tree
of every file git does not ignore, its blobs written into the repository) is taken
before and after: what differs is listed (:func:`diff`) and put back from the
fingerprint's tree (:func:`restore`): changed and deleted files get their tested
content, mode or link back, files the gate added are removed. In every case the
fingerprint is compared after the gate (:func:`settle`).

Nothing is read through a link: a folder the gate replaced by a link is removed before
anything is written under its name, and a file is written beside its place and renamed
over it (``os.replace`` replaces a link, never follows it).
"""

from __future__ import annotations

import os
import secrets
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from agent.sandbox.overlay import Change, Kind, UpperEntry
from common.workspace import git

ZERO = "0" * 40
LINK_MODE = "120000"
GITLINK_MODE = "160000"
EXEC_MODE = "100755"


@dataclass(frozen=True)
class TreeChange:
    """One path that differs between the tested tree and the tree after the gate."""

    path: bytes
    old_mode: str
    """``000000``: the gate added the path."""
    new_mode: str
    """``000000``: the gate deleted it."""
    old_blob: str
    new_blob: str = ZERO

    def entry(self, target: bytes = b"") -> UpperEntry:
        """The change as a gate's listing names it (the same words as the overlay's);
        ``target``: a link's, as the gate left it."""
        change: Change
        if self.old_mode == "000000":
            change = "added"
        elif self.new_mode == "000000":
            change = "deleted"
        elif _kind(self.old_mode) != _kind(self.new_mode):
            change = "replaced"
        else:
            change = "modified"
        kind = _kind(self.old_mode if change == "deleted" else self.new_mode)
        return UpperEntry(self.path, change, kind, target if kind == "link" else b"")


def _kind(mode: str) -> Kind:
    return "link" if mode == LINK_MODE else "file"


def parse_raw_diff(out: bytes) -> list[TreeChange]:
    """``git diff-tree -r -z --no-renames --raw`` output as changes (pure)."""
    fields = out.split(b"\0")
    changes: list[TreeChange] = []
    index = 0
    while index + 1 < len(fields):
        meta, path = fields[index], fields[index + 1]
        index += 2
        if not meta.startswith(b":"):
            continue
        old_mode, new_mode, old_blob, new_blob, _status = meta[1:].decode().split(" ")
        changes.append(TreeChange(path, old_mode, new_mode, old_blob, new_blob))
    return changes


def diff(work_tree: Path, tested: str, now: str) -> list[TreeChange]:
    """What differs between the tested tree and the tree ``now`` (both fingerprints)."""
    out = git.git_bytes(work_tree, "diff-tree", "-r", "-z", "--no-renames", "--raw", tested, now)
    return parse_raw_diff(out)


def entries(work_tree: Path, changes: list[TreeChange]) -> list[UpperEntry]:
    """The changes as a gate's listing names them, each link with its target."""
    links = [c.new_blob for c in changes if c.new_mode == LINK_MODE]
    targets = read_blobs(work_tree, links)
    return [change.entry(targets.get(change.new_blob, b"")) for change in changes]


def restore(work_tree: Path, changes: list[TreeChange]) -> None:
    """Put the tested content back: remove what the gate added (deepest first), then
    write each changed or deleted path's tested blob with its mode (a link as a link)."""
    added = [change for change in changes if change.old_mode == "000000"]
    for change in sorted(added, key=lambda change: change.path.count(b"/"), reverse=True):
        _remove(work_tree, change.path)
    wanted = [c for c in changes if c.old_mode not in ("000000", GITLINK_MODE)]
    blobs = read_blobs(work_tree, [change.old_blob for change in wanted])
    for change in wanted:
        _write(work_tree, change.path, change.old_mode, blobs[change.old_blob])


def read_blobs(work_tree: Path, shas: list[str]) -> dict[str, bytes]:
    """The content of each blob (one ``git cat-file --batch``)."""
    unique = list(dict.fromkeys(shas))
    if not unique:
        return {}
    out = git.git_bytes(
        work_tree, "cat-file", "--batch", stdin=b"".join(sha.encode() + b"\n" for sha in unique)
    )
    return parse_batch(out)


def parse_batch(out: bytes) -> dict[str, bytes]:
    """``git cat-file --batch`` output as ``{sha: content}`` (pure)."""
    found: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        sha, kind, size = out[at:header_end].decode().split(" ")
        if kind != "blob":
            raise ValueError(f"{sha} is a {kind}, not a blob")
        start = header_end + 1
        found[sha] = out[start : start + int(size)]
        at = start + int(size) + 1
    return found


def _remove(work_tree: Path, raw: bytes) -> None:
    """Remove what the gate added at ``raw``, only where the path to it is real folders."""
    if not _real_folders_to(work_tree, raw):
        return
    path = work_tree / os.fsdecode(raw)
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(path)
    else:
        path.unlink()


def _real_folders_to(work_tree: Path, raw: bytes) -> bool:
    folder = work_tree
    for part in raw.split(b"/")[:-1]:
        folder = folder / os.fsdecode(part)
        try:
            if not stat.S_ISDIR(folder.lstat().st_mode):
                return False
        except FileNotFoundError:
            return False
    return True


def _write(work_tree: Path, raw: bytes, mode: str, content: bytes) -> None:
    """Write the tested ``content`` at ``raw``: its folders made real first (a link or
    file the gate put in a folder's place removed), then a new file renamed over it."""
    folder = work_tree
    for part in raw.split(b"/")[:-1]:
        folder = folder / os.fsdecode(part)
        _make_folder(folder)
    target = work_tree / os.fsdecode(raw)
    scratch = folder / f".harness-restore-{secrets.token_hex(8)}"
    if mode == LINK_MODE:
        scratch.symlink_to(os.fsdecode(content))
    else:
        permissions = 0o755 if mode == EXEC_MODE else 0o644
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        handle = os.open(scratch, flags, permissions)
        with os.fdopen(handle, "wb") as out:
            out.write(content)
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    scratch.replace(target)


def _make_folder(folder: Path) -> None:
    try:
        info = folder.lstat()
    except FileNotFoundError:
        folder.mkdir()
        return
    if not stat.S_ISDIR(info.st_mode):
        folder.unlink()
        folder.mkdir()
    elif not os.access(folder, os.W_OK | os.X_OK):
        folder.chmod(stat.S_IMODE(info.st_mode) | stat.S_IRWXU)

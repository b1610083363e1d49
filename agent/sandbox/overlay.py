"""A gate's view of the work tree: an overlay whose writes land in a folder of its own.

Why: a gate (the tests, a quality check, the browser replay) runs code the model wrote,
and its verdict is about one tree: the one the harness will commit. Bound writable, the
work tree was the gate's to change: a ``conftest.py`` that passed the tests, then edited
a source file and rewrote itself, had the untested tree committed (issue 26, finding 1).
In an overlay, the work tree is the lower layer, never written; every write, link and
deletion lands in ``FOLDER/upper`` (a deletion as a *whiteout*: a character device
0/0), which the harness lists after the gate (:func:`listing`) and removes. A writable
cache works inside and is discarded with it.

bubblewrap (0.11) lays it out: ``--overlay-src LOWER --overlay UPPER WORK DEST``. Without
root it needs a kernel that allows overlayfs in a user namespace (5.11 and later), so
whether it works is measured once per agent (:func:`probe`), like bubblewrap itself.
Measured here (root and ``nobody``, kernel 6.18, ext4): the lower layer is untouched;
``rm -r d; mkdir d`` marks ``upper/d`` opaque (``user.overlay.opaque``, ``trusted.`` as
root without a user namespace). Known limit: a file whose group is not the caller's own
cannot be copied up in a user namespace (``EOVERFLOW``), so a gate cannot write it.
"""

from __future__ import annotations

import functools
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from common.bwrap import PROBE_TIMEOUT_S
from common.workspace import pathnames

UPPER = "upper"
"""Where the gate's writes land, inside the caller's folder."""
WORK = "work"
"""overlayfs's own scratch folder (same file system as ``upper``)."""
OPAQUE_XATTRS = ("user.overlay.opaque", "trusted.overlay.opaque")
WHITEOUT_XATTRS = ("user.overlay.whiteout", "trusted.overlay.whiteout")
MAX_ENTRIES = 10_000
"""At most this many changes are listed (a gate that writes 100,000 files is named by
the first ones and a count that says there is more)."""
COMPARED_BYTES = 50 * 1024 * 1024
"""A copied-up file larger than this is taken as changed without reading both."""

Change = Literal["added", "modified", "deleted", "replaced"]
"""What a gate did to a path: made it, changed its content or mode, removed it, or put
something of another kind (a link, a folder) in its place."""
Kind = Literal["file", "link", "folder", "special"]


@dataclass(frozen=True)
class UpperEntry:
    """One path a gate changed, relative to the work tree (git's bytes)."""

    path: bytes
    change: Change
    kind: Kind
    """What is there now (for ``deleted``: what was there)."""
    target: bytes = b""
    """A link's target (``kind`` ``link`` only)."""

    def line(self) -> str:
        """``calc/core.py: modified``, the path escaped (one line)."""
        shown = pathnames.shown(self.path) + ("/" if self.kind == "folder" else "")
        what = {
            "added": "added",
            "modified": "modified",
            "deleted": "deleted",
            "replaced": f"replaced by a {self.kind}",
        }[self.change]
        if self.kind == "link" and self.change != "deleted":
            what += f" (a link to {pathnames.shown(self.target)})"
        return f"{shown}: {what}"


@dataclass
class Listing:
    """What a gate changed in its view, from its upper folder."""

    entries: list[UpperEntry] = field(default_factory=list)
    more: bool = False
    """More than :data:`MAX_ENTRIES` changes: the list stops there."""


def lay_out(folder: Path) -> tuple[Path, Path]:
    """Make ``folder``'s upper and work folders (``folder`` is the caller's, empty)."""
    upper, work = folder / UPPER, folder / WORK
    upper.mkdir(mode=0o700)
    work.mkdir(mode=0o700)
    return upper, work


def overlay_args(lower: Path, folder: Path) -> list[str]:
    """bubblewrap's options that show ``lower`` at its own path, writes going to
    ``folder`` (pure: the folders are made by :func:`lay_out`)."""
    return [
        "--overlay-src",
        str(lower),
        "--overlay",
        str(folder / UPPER),
        str(folder / WORK),
        str(lower),
    ]


def remove(folder: Path) -> None:
    """Remove ``folder`` whole: overlayfs leaves its work folder mode 000, which even its
    owner cannot empty before a ``chmod``. No link is followed."""
    if not folder.exists():
        return
    for root, dirs, _files in os.walk(folder, followlinks=False):
        for name in dirs:
            path = Path(root) / name
            if not path.is_symlink():
                path.chmod(stat.S_IRWXU)
    folder.chmod(stat.S_IRWXU)
    shutil.rmtree(folder, ignore_errors=True)


@functools.cache
def probe(bwrap: Path) -> str | None:
    """``None`` when ``bwrap`` can give a gate an overlay here, else why not (once per
    process: the answer is the kernel's and bubblewrap's).

    Writes a file and deletes another in an overlay of a scratch folder in the temp
    folder, where the gates' upper folders go, and checks where each landed.
    """
    with tempfile.TemporaryDirectory(prefix="harness-overlay-probe-") as scratch:
        root = Path(scratch)
        lower, folder = root / "lower", root / "view"
        lower.mkdir()
        folder.mkdir()
        (lower / "kept").write_text("lower\n")
        (lower / "gone").write_text("lower\n")
        lay_out(folder)
        script = f"echo upper > {lower}/kept && rm {lower}/gone"
        argv = [str(bwrap), "--unshare-all", "--cap-drop", "ALL", "--die-with-parent"]
        argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        argv += [*overlay_args(lower, folder), "/bin/sh", "-c", script]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as e:
            return f"bubblewrap cannot lay out an overlay: {e}"
        finally:
            remove(folder)
        if done.returncode != 0:
            detail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
            return f"bubblewrap cannot lay out an overlay here: {detail}"
        return None if (lower / "kept").read_text() == "lower\n" else "the overlay wrote through"


def usable(bwrap: Path, log: Callable[[str], None]) -> bool:
    """Whether the gates can see the work tree as an overlay here; why not is logged
    (they then run on the work tree, and the harness puts back what they change)."""
    refused = probe(bwrap)
    if refused is not None:
        log(f"sandbox: gates see the work tree without an overlay ({refused})")
    return refused is None


def listing(upper: Path, lower: Path) -> Listing:
    """What a gate changed: every entry of ``upper`` that differs from ``lower``.

    A file copied up but left as it was (opened for writing, ``touch``) is no change; a
    folder is listed only when it replaced something else or an opaque one replaced a
    folder (``rm -r d; mkdir d``); the files in a new folder are listed one by one. The
    lower layer is read only where the whole path to it is real folders: a path under a
    link the gate replaced is never followed out of the work tree.
    """
    found = Listing()
    for entry in _walk(upper, lower, Path(), lower_ok=True):
        if len(found.entries) >= MAX_ENTRIES:
            found.more = True
            break
        found.entries.append(entry)
    return found


def _walk(upper: Path, lower: Path, relative: Path, *, lower_ok: bool) -> Iterator[UpperEntry]:
    with os.scandir(upper / relative) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        path = relative / name
        here = upper / path
        info = here.lstat()
        below = _lstat(lower / path) if lower_ok else None
        if stat.S_ISDIR(info.st_mode):
            yield from _folder(upper, lower, path, below)
            continue
        entry = _entry(path, here, info, below, lower / path)
        if entry is not None:
            yield entry


def _folder(
    upper: Path, lower: Path, path: Path, below: os.stat_result | None
) -> Iterator[UpperEntry]:
    was_folder = below is not None and stat.S_ISDIR(below.st_mode)
    opaque = _has_xattr(upper / path, OPAQUE_XATTRS, b"y")
    if below is not None and (not was_folder or opaque):
        yield UpperEntry(os.fsencode(path), "replaced", "folder")
    yield from _walk(upper, lower, path, lower_ok=was_folder and not opaque)


def _entry(
    path: Path, here: Path, info: os.stat_result, below: os.stat_result | None, there: Path
) -> UpperEntry | None:
    raw = os.fsencode(path)
    if _is_whiteout(here, info):
        return UpperEntry(raw, "deleted", _kind(below.st_mode) if below else "file")
    kind = _kind(info.st_mode)
    target = os.fsencode(here.readlink()) if kind == "link" else b""
    if below is None:
        return UpperEntry(raw, "added", kind, target)
    if _kind(below.st_mode) != kind:
        return UpperEntry(raw, "replaced", kind, target)
    if kind == "link":
        same = os.fsencode(there.readlink()) == target
        return None if same else UpperEntry(raw, "modified", kind, target)
    if kind == "file" and _same_file(here, info, there, below):
        return None
    return UpperEntry(raw, "modified", kind)


def _kind(mode: int) -> Kind:
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return "file"
    return "special"


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _is_whiteout(path: Path, info: os.stat_result) -> bool:
    """overlayfs's mark of a deletion: a character device 0/0 (or, where a layer was made
    without ``mknod``, an empty file with a whiteout attribute)."""
    if stat.S_ISCHR(info.st_mode):
        return info.st_rdev == 0
    return stat.S_ISREG(info.st_mode) and info.st_size == 0 and _has_xattr(path, WHITEOUT_XATTRS)


def _has_xattr(path: Path, names: tuple[str, ...], value: bytes | None = None) -> bool:
    for name in names:
        try:
            found = os.getxattr(path, name, follow_symlinks=False)
        except OSError:
            continue
        if value is None or found == value:
            return True
    return False


def _same_file(here: Path, info: os.stat_result, there: Path, below: os.stat_result) -> bool:
    """Whether a copied-up file holds what the lower one does, with the same exec bit."""
    if info.st_size != below.st_size or bool(info.st_mode & 0o111) != bool(below.st_mode & 0o111):
        return False
    if info.st_size > COMPARED_BYTES:
        return False
    try:
        with here.open("rb") as mine, there.open("rb") as theirs:
            while chunk := mine.read(1 << 20):
                if chunk != theirs.read(len(chunk)):
                    return False
    except OSError:
        return False
    return True

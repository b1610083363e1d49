"""Taking the browser's screenshots out of the session's output folder into the workspace.

The output folder is writable by everything in the session's sandbox, the model's
commands included, so what is in it is hostile: a link to ``decision.key``, a FIFO that
blocks a reader, a 2 GB file, ten thousand files, a name with escape sequences. The
harness therefore opens each entry with ``O_NOFOLLOW | O_NONBLOCK``, keeps only regular
files with the PNG signature and an ``IHDR`` of a real size, at most :data:`MAX_BYTES`
each and :data:`MAX_COUNT` per session, and names the copies itself
(``issue-3-s1-1.png``): the model's file names never reach a person. Everything in the
folder is then removed, so the next session starts with an empty one.
"""

from __future__ import annotations

import os
import shutil
import stat
import struct
from dataclasses import dataclass, field
from pathlib import Path

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_BYTES = 8 * 1024 * 1024
"""A 1280×720 screenshot is 10–200 KB; a full page of a long app a few MB."""
MAX_SIDE = 16_384
"""Chromium's own limit for a screenshot's width or height."""
MAX_PIXELS = 40_000_000
"""A full page 1,280 wide and 16,384 tall is 21 million pixels. A PNG's size is its
header's word: a 0.5 MB file can declare 65,535 × 65,535 and cost the person's image
viewer 16 GiB when they open it (measured: such a file was taken before this bound)."""
MAX_COUNT = 20
"""Per session: enough for every feature checked, few enough to review."""
MAX_ENTRIES = 1000
"""Entries of the output folder looked at (a folder of millions is not read to its end)."""


@dataclass
class Collected:
    """What one collection took into the workspace, and what it left out and why."""

    saved: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One line per entry left out (its reason; never the model's file name)."""


def png_size(head: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG's first 24 bytes, ``None`` when it is not a PNG whose
    first chunk is an ``IHDR`` of a positive size (pure)."""
    if len(head) < 24 or not head.startswith(PNG_SIGNATURE) or head[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return (width, height) if width > 0 and height > 0 else None


def collect(output_dir: Path, destination: Path, prefix: str) -> Collected:
    """Copy the screenshots in ``output_dir`` to ``destination/<prefix>-<n>.png``, then
    empty ``output_dir``. A missing folder is an empty one."""
    found = Collected()
    try:
        entries = sorted(_entries(output_dir), key=lambda entry: entry[1])
    except FileNotFoundError:
        return found
    for name, _mtime in entries:
        if len(found.saved) >= MAX_COUNT:
            found.skipped.append(f"more than {MAX_COUNT} screenshots in one session")
            break
        data, why = _read_png(output_dir, name)
        if data is None:
            if why:
                found.skipped.append(why)
            continue
        destination.mkdir(parents=True, exist_ok=True)
        target = destination / f"{prefix}-{len(found.saved) + 1}.png"
        _write_new(target, data)
        found.saved.append(target)
    empty(output_dir)
    return found


def _entries(folder: Path) -> list[tuple[str, int]]:
    """Names and modification times of the folder's first entries (links not followed)."""
    found: list[tuple[str, int]] = []
    with os.scandir(folder) as listing:
        for entry in listing:
            if len(found) >= MAX_ENTRIES:
                break
            try:
                found.append((entry.name, entry.stat(follow_symlinks=False).st_mtime_ns))
            except OSError:
                continue
    return found


def _read_png(folder: Path, name: str) -> tuple[bytes | None, str]:
    """The entry's bytes when it is a screenshot, else ``None`` and why (``""``: not
    worth a line, such as the server's page snapshots and console logs)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder / name, flags)
    except OSError:
        return None, "an entry that is a link or cannot be opened"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "an entry that is not a regular file"
        head = os.read(fd, 24)
        if not head.startswith(PNG_SIGNATURE):
            return None, ""
        size = png_size(head)
        if size is None:
            return None, "a file with the PNG signature but no image size"
        width, height = size
        if max(width, height) > MAX_SIDE or width * height > MAX_PIXELS:
            return (
                None,
                f"a PNG that declares {width} × {height} pixels (no screenshot is that big)",
            )
        if info.st_size > MAX_BYTES:
            return None, f"a screenshot over {MAX_BYTES // (1024 * 1024)} MB"
        rest = os.read(fd, MAX_BYTES + 1 - len(head))
        if len(head) + len(rest) > MAX_BYTES:  # grown since fstat
            return None, f"a screenshot over {MAX_BYTES // (1024 * 1024)} MB"
        return head + rest, ""
    finally:
        os.close(fd)


def _write_new(target: Path, data: bytes) -> None:
    """``data`` in a new file the harness names (never an existing one, never a link)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(target, flags, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


def empty(folder: Path) -> None:
    """Remove everything in ``folder`` (links removed, never followed), keep the folder."""
    try:
        paths = list(folder.iterdir())
    except FileNotFoundError:
        return
    for path in paths:
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
        except OSError:
            continue

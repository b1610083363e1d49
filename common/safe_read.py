"""Reading a file the model may have made, without letting it choose what is read.

Why: every file in a work tree is the model's after its first session, and the
harness reads some of them with its own authority, outside the sandbox (its settings
``.harness.json``, ``pyproject.toml``, the venv's ``.pth`` files, a worktree's ``.git``
file, the files the outbound review judges). A plain ``open`` waits forever on a
FIFO (a FIFO named ``.harness.json`` froze the agent at project_verification, on
the event loop, at every resume), follows a link to ``/dev/zero`` and reads until
memory runs out, and opening a device node can act on the device.

So every read here:

- looks first (``lstat``): a link, FIFO, socket, device or folder is refused before
  anything is opened;
- opens with ``O_NOFOLLOW | O_NONBLOCK | O_NOCTTY``: a swap between the look and the
  open can neither make it follow a link nor wait for a writer;
- checks the opened file (``fstat``) is still a regular file, the one it looked at;
- reads at most the cap, and refuses a file over it (by its size, and again by what
  was read, for a file that grows meanwhile).

A refusal is a :class:`Refused` (an ``OSError``, so callers that treat any unreadable
file alike keep working) whose text is one line for people. Only the last part of the
path is protected: folders on the way (a project's ``.venv`` link into the harness's
environment cache) are followed, as the caller chose them. The reads are blocking
file reads of at most the cap; async callers run them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from common.untrusted_text import printable_line

FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""How every file is opened: never through a link, never waiting, never a terminal."""

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


class Refused(OSError):
    """The path is not a regular file of at most the cap; ``str()`` is one line."""

    def __init__(self, path: Path, what: str) -> None:
        super().__init__(errno.EINVAL, what, str(path))
        self.path = path
        self.what = what
        """Why, for people: ``a FIFO``, ``larger than 262,144 bytes``…"""

    def __str__(self) -> str:
        return f"{printable_line(str(self.path))} is {self.what}"


def kind_of(mode: int) -> str | None:
    """What a file of ``mode`` is when it is not a regular file (``None``: it is one)."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


@contextmanager
def opened(path: Path, max_bytes: int) -> Iterator[tuple[int, os.stat_result]]:
    """``path`` open for reading (a descriptor and its ``fstat``), when it is a regular
    file of at most ``max_bytes``; closed after the block.

    Raises:
        FileNotFoundError: there is nothing at ``path`` (or a folder on the way is missing).
        Refused: it is a link, FIFO, socket, device or folder, or larger than the cap.
        OSError: it cannot be opened (permissions).
    """
    seen = os.lstat(path)
    what = kind_of(seen.st_mode)
    if what is not None:
        raise Refused(path, what)
    _check_size(path, seen.st_size, max_bytes)
    try:
        fd = os.open(path, FLAGS)
    except OSError as e:
        if e.errno == errno.ELOOP:  # made a link since it was looked at
            raise Refused(path, "a symbolic link") from e
        raise
    try:
        info = os.fstat(fd)
        what = kind_of(info.st_mode)
        if what is not None:
            raise Refused(path, what)
        if (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
            raise Refused(path, "a file that was replaced while the harness read it")
        _check_size(path, info.st_size, max_bytes)
        yield fd, info
    finally:
        os.close(fd)


def _check_size(path: Path, size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise Refused(path, f"larger than {max_bytes:,} bytes ({size:,})")


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """``path``'s bytes (see :func:`opened` for what is refused)."""
    with opened(path, max_bytes) as (fd, _info):
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    data = b"".join(chunks)
    if len(data) > max_bytes:  # grown since it was looked at
        raise Refused(path, f"larger than {max_bytes:,} bytes")
    return data


def read_text(path: Path, max_bytes: int) -> str:
    """``path``'s text as UTF-8, a byte that is not UTF-8 read as U+FFFD."""
    return read_bytes(path, max_bytes).decode("utf-8", errors="replace")


def read_if_present(path: Path, max_bytes: int) -> bytes | None:
    """:func:`read_bytes`, or ``None`` when there is nothing at ``path``."""
    try:
        return read_bytes(path, max_bytes)
    except (FileNotFoundError, NotADirectoryError):
        return None

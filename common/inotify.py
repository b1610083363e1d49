"""Waiting for a folder's files to change with no periodic wake-up (Linux inotify).

Why: an agent waiting for a person's decision may wait for hours, and many agents
may wait at once. watchfiles wakes every few milliseconds to look for events; an
inotify descriptor registered with the event loop wakes the process only when a
file in the folder is written or replaced (atomic writes end with a rename, which
is ``IN_MOVED_TO``).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import os
import struct
from pathlib import Path
from types import TracebackType

from common.errors import HarnessError

IN_CLOSE_WRITE = 0x00000008
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_Q_OVERFLOW = 0x00004000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
_EVENT = struct.Struct("iIII")
"""``struct inotify_event`` without its name: wd, mask, cookie, len."""
_MASK = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE


class WatchError(HarnessError):
    """The folder cannot be watched (no inotify, too many watches, no folder)."""


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class FolderWatch:
    """``async with FolderWatch(folder) as watch: names = await watch.changed()``.

    Only the folder's own entries are watched, not its subfolders. A change that
    happens between two :meth:`changed` calls is kept by the kernel and returned by
    the next call, so "check, then wait" never misses one.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._fd = -1

    async def __aenter__(self) -> FolderWatch:
        libc = _libc()
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise WatchError(f"cannot watch {self.folder}: {os.strerror(ctypes.get_errno())}")
        if libc.inotify_add_watch(fd, os.fsencode(self.folder), _MASK) < 0:
            error = ctypes.get_errno()
            os.close(fd)
            raise WatchError(f"cannot watch {self.folder}: {os.strerror(error)}")
        self._fd = fd
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    async def changed(self) -> set[str]:
        """The names of the entries that changed; waits for at least one event.

        An overflowed event queue comes back as ``{"*"}``: anything may have changed.
        """
        loop = asyncio.get_running_loop()
        while True:
            names = self._read()
            if names:
                return names
            ready: asyncio.Future[None] = loop.create_future()

            def wake(future: asyncio.Future[None] = ready) -> None:
                if not future.done():
                    future.set_result(None)

            loop.add_reader(self._fd, wake)
            try:
                await ready
            finally:
                loop.remove_reader(self._fd)

    def _read(self) -> set[str]:
        try:
            data = os.read(self._fd, 64 * 1024)
        except BlockingIOError:
            return set()
        names: set[str] = set()
        offset = 0
        while offset + _EVENT.size <= len(data):
            _wd, mask, _cookie, length = _EVENT.unpack_from(data, offset)
            offset += _EVENT.size
            raw = data[offset : offset + length].rstrip(b"\0")
            offset += length
            if mask & IN_Q_OVERFLOW:
                names.add("*")
            elif raw:
                names.add(os.fsdecode(raw))
        return names

"""Watch a changing set of workspace folders and report which files changed.

One ``watchfiles.awatch`` covers every folder; when the set changes (an agent
was started or removed) the watch is stopped through its ``stop_event`` and
started again over the new set.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from contextlib import aclosing
from pathlib import Path

from watchfiles import awatch

log = logging.getLogger(__name__)

ChangeHandler = Callable[[set[Path]], None]


class FolderWatcher:
    """Calls ``on_change`` with the changed paths, batched by watchfiles' debounce.

    Only the top level of each folder is watched: the agent's state files live
    there, while its busy log files live in ``logs/`` below.
    """

    def __init__(self, on_change: ChangeHandler, *, debounce_ms: int, step_ms: int) -> None:
        self._on_change = on_change
        self._debounce_ms = debounce_ms
        self._step_ms = step_ms
        self._folders: frozenset[Path] = frozenset()
        self._restart = asyncio.Event()
        self._closing = False

    def set_folders(self, folders: Iterable[Path]) -> None:
        """Watch exactly ``folders`` from now on (restarting the watch if that is new)."""
        wanted = frozenset(folders)
        if wanted != self._folders:
            self._folders = wanted
            self._restart.set()

    def stop(self) -> None:
        """End :meth:`run` within one watchfiles step."""
        self._closing = True
        self._restart.set()

    async def run(self) -> None:
        """Watch until :meth:`stop`; an empty set waits for folders without a watcher."""
        while not self._closing:
            self._restart.clear()
            folders = sorted(folder for folder in self._folders if folder.is_dir())
            if not folders:
                await self._restart.wait()
                continue
            try:
                await self._watch(folders)
            except FileNotFoundError as e:
                # A folder vanished between is_dir() and the watch; the next round skips it.
                log.warning("watching %s failed (%s); watching again", folders, e)

    async def _watch(self, folders: list[Path]) -> None:
        changes_stream = awatch(
            *folders,
            watch_filter=None,
            debounce=self._debounce_ms,
            step=self._step_ms,
            stop_event=self._restart,
            recursive=False,
        )
        async with aclosing(changes_stream) as changes_batches:
            async for changes in changes_batches:
                self._on_change({Path(path) for _, path in changes})

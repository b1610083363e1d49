"""The system folders' private files, covered in the sandbox.

Why: the sandbox shows ``/etc`` read-only (the time zone, the user database, DNS, CA
certificates, ``/etc/alternatives``), and the model's commands run as the harness's
user. Run as root, as in a container or a CI job, that user owns ``/etc/shadow``, the SSH
host keys, ``/etc/ssl/private``, a cluster's ``/etc/kubernetes/admin.conf``, a runner's
token file: the model read ``/etc/shadow`` (measured). By convention a file the world
may not read is a secret, so every such file is covered by an empty one and every such
folder by an empty read-only one; what the world may read stays as it is.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

SCANNED = (Path("/etc"),)
"""The system folders the sandbox shows whose private entries are covered."""
SCAN_BUDGET_S = 2.0
"""The longest the walk may take (1,181 entries took 20-130 ms here); past it, what was
found is covered and the rest of the walk is skipped, said once."""


@dataclass(frozen=True)
class PrivateEntries:
    """Entries of the system folders the world may not read."""

    files: tuple[Path, ...] = ()
    folders: tuple[Path, ...] = ()
    complete: bool = True
    """Whether the walk finished within its budget."""


def private_entries(
    roots: tuple[Path, ...] = SCANNED, budget_s: float = SCAN_BUDGET_S
) -> PrivateEntries:
    """Every file under ``roots`` the world may not read, and every folder it may not
    list or enter (not descended into: covering it covers what it holds). Links are not
    followed: a link is shown as a link, and its target is judged where it lies."""
    deadline = time.monotonic() + budget_s
    files: list[Path] = []
    folders: list[Path] = []
    pending = [root for root in roots if root.is_dir() and not root.is_symlink()]
    while pending:
        if time.monotonic() > deadline:
            return PrivateEntries(tuple(files), tuple(folders), complete=False)
        folder = pending.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                if mode & stat.S_IROTH and mode & stat.S_IXOTH:
                    pending.append(Path(entry.path))
                else:
                    folders.append(Path(entry.path))
            elif stat.S_ISREG(mode) and not mode & stat.S_IROTH:
                files.append(Path(entry.path))
    return PrivateEntries(tuple(sorted(files)), tuple(sorted(folders)))

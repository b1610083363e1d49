"""What one session, gate or replay may take from the machine, and one project from its disk.

Why: everything a session starts runs the model's code, and so does every gate. Without
bounds one session could fill the RAM (the sandbox's ``/tmp`` and home are RAM-backed
tmpfs), fork without end or write until the disk is full, and take the daemon and every
other agent down with it. Each bound is per session or gate, so three slots at once stay
within the machine; the defaults fit a 2-core, 24 GiB machine with three slots. ``None``
turns a bound off.
"""

from __future__ import annotations

from pydantic import Field

from common.schemas.base import StrictModel

DEFAULT_MEMORY_MB = 4096
DEFAULT_PROCESSES = 1024
DEFAULT_CPUS = 1.0
DEFAULT_FILE_SIZE_MB = 1024
DEFAULT_TMPFS_MB = 1024
DEFAULT_DISK_MB = 4096
DEFAULT_CHANGED_FILES = 1000


class Limits(StrictModel):
    """Bounds on every session, gate, replay and sandboxed MCP server, and on the project."""

    memory_mb: int | None = Field(default=DEFAULT_MEMORY_MB, ge=64)
    """Memory of one session or gate and everything it starts, the files in its tmpfs
    mounts included (a cgroup's ``memory.max``; where the machine has no memory cgroup
    for us, only the tmpfs sizes bound what files take)."""
    processes: int | None = Field(default=DEFAULT_PROCESSES, ge=16)
    """Processes and threads of one session or gate (a cgroup's ``pids.max``)."""
    cpus: float | None = Field(default=DEFAULT_CPUS, gt=0, allow_inf_nan=False)
    """Cores one session or gate may keep busy (a cgroup's ``cpu.max``)."""
    file_size_mb: int | None = Field(default=DEFAULT_FILE_SIZE_MB, ge=1)
    """The largest file one process may write (``RLIMIT_FSIZE``; always set)."""
    tmpfs_mb: int = Field(default=DEFAULT_TMPFS_MB, ge=16)
    """The size of each RAM-backed folder inside the sandbox (``/tmp``, ``/var/tmp``,
    ``/run``, the home; always set)."""
    disk_mb: int | None = Field(default=DEFAULT_DISK_MB, ge=1)
    """How much the project's work tree (its slots' worktrees included, ignored files
    included, ``.git`` not) may grow beyond its size when the run started."""
    changed_files: int = Field(default=DEFAULT_CHANGED_FILES, ge=1)
    """Files one session may change; above it the session's files are held for a person."""

"""What one session, gate or replay may take from the machine, and one project from its disk.

Why: everything a session starts runs the model's code, and so does every gate. Without
bounds one session could fill the RAM (the sandbox's ``/tmp`` and home are RAM-backed
tmpfs), fork without end or write until the disk is full, and take the daemon and every
other agent down with it. Each bound is per session or gate, so three slots at once stay
within the machine. ``None`` turns a bound off.

The defaults fit a 2-core, 24 GiB machine with three slots: a slot runs at most a session
and a gate (its baseline) at once, so six groups of 3 GiB leave 6 GiB to the daemon, the
agents and the system; each sandbox's four tmpfs of 512 MiB are counted in its memory where
a memory cgroup holds, and bound RAM on their own where none does.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from common.schemas.base import StrictModel, utc_now

DEFAULT_MEMORY_MB = 3072
DEFAULT_PROCESSES = 1024
DEFAULT_CPUS = 1.0
DEFAULT_FILE_SIZE_MB = 1024
DEFAULT_TMPFS_MB = 512
DEFAULT_DISK_MB = 4096
DEFAULT_CHANGED_FILES = 1000
_MB_MAX = 1 << 30
"""A petabyte in MB: above it a value is a typo, and the kernel's files refuse it."""


class Limits(StrictModel):
    """Bounds on every session, gate, replay and sandboxed MCP server, and on the project."""

    memory_mb: int | None = Field(default=DEFAULT_MEMORY_MB, ge=64, le=_MB_MAX)
    """Memory of one session or gate and everything it starts, the files in its tmpfs
    mounts included (a cgroup's ``memory.max``, swap off; where the machine has no memory
    cgroup for us, only the tmpfs sizes bound what files take)."""
    processes: int | None = Field(default=DEFAULT_PROCESSES, ge=16, le=4_194_304)
    """Processes and threads of one session or gate (a cgroup's ``pids.max``)."""
    cpus: float | None = Field(default=DEFAULT_CPUS, gt=0, le=1024, allow_inf_nan=False)
    """Cores one session or gate may keep busy (a cgroup's ``cpu.max``)."""
    file_size_mb: int | None = Field(default=DEFAULT_FILE_SIZE_MB, ge=1, le=_MB_MAX)
    """The largest file one process may write (``RLIMIT_FSIZE``; always set)."""
    tmpfs_mb: int = Field(default=DEFAULT_TMPFS_MB, ge=16, le=_MB_MAX)
    """The size of each RAM-backed folder inside the sandbox (``/tmp``, ``/var/tmp``,
    ``/run``, the home; always set)."""
    disk_mb: int | None = Field(default=DEFAULT_DISK_MB, ge=1, le=_MB_MAX)
    """How much each work tree of the run (the project's, each slot's worktree; ignored
    files included, ``.git`` not) may grow beyond the project's size when the run started."""
    changed_files: int = Field(default=DEFAULT_CHANGED_FILES, ge=1)
    """Files one session may change; above it the session's files are held for a person."""


class DiskBaseline(StrictModel):
    """The project's work tree when the run started: what the disk budget counts from."""

    kb: int = Field(ge=0)
    """Its size (blocks on disk, ignored files included, ``.git`` and the workspace not)."""
    at: datetime = Field(default_factory=utc_now)
    """When it was measured: files changed since are what a session is told takes the space."""


class MachineLimits(StrictModel):
    """Which limits hold where the agent last started, and which could not be set there.

    Measured by one probe at the agent's start (a cgroup made, limited and removed), so
    that project_verification and ``harness status`` say the truth about this machine."""

    held: list[str] = Field(default_factory=list)
    """One line per limit in force, with how it is enforced."""
    not_set: list[str] = Field(default_factory=list)
    """One line per limit the spec asks for that this machine cannot enforce, and why."""

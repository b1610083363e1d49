"""Processes as the daemon sees them: identity across restarts, spawning, signalling.

A pid alone is not an identity: after a restart the daemon may find the pid of
a dead agent reused. The start time (field 22 of ``/proc/PID/stat``, in clock
ticks since boot) together with the pid is.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

_DEAD_STATES = frozenset({"Z", "X"})
"""Zombie and dead: the process has exited even if its pid is still listed."""


def stat_fields(pid: int) -> list[str] | None:
    """Fields 3 onward of ``/proc/PID/stat``, or ``None`` when there is no such process.

    Field 2 (the command name) is in parentheses and may itself contain spaces
    and parentheses, so the fields are split after its last ``)``.
    """
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return raw.rsplit(")", 1)[1].split()


def start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, ``None`` when it does not exist."""
    fields = stat_fields(pid)
    return None if fields is None else int(fields[19])


def started_at(pid: int) -> datetime | None:
    """When the process started, as UTC wall time (to a clock tick), ``None`` if it is gone.

    The start is counted from boot (``CLOCK_BOOTTIME``, as ``/proc`` counts it) and
    placed on the wall clock from now: ``btime`` in ``/proc/stat`` is whole seconds only.
    """
    ticks = start_ticks(pid)
    if ticks is None:
        return None
    age_s = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    return datetime.now(UTC) - timedelta(seconds=age_s)


def started_by(pid: int) -> datetime | None:
    """The latest instant the process can have started, as UTC wall time; ``None`` if gone.

    Why not :func:`started_at`: ``/proc`` counts the start in whole clock ticks, cut down,
    so that instant is up to a tick (10 ms) *before* the real start. ``harness approve``
    decides only a checkpoint created before the command started; measured against the
    cut-down start, a checkpoint that appeared in the tick before the command was typed,
    the one on the person's screen, looked newer than the command and was refused ("a new
    checkpoint appeared"). The end of the tick is a start the process cannot have passed:
    a checkpoint created after it is one the person cannot have seen when typing.
    """
    started = started_at(pid)
    if started is None:
        return None
    return started + timedelta(seconds=1 / os.sysconf("SC_CLK_TCK"))


def is_alive(pid: int | None, ticks: int | None) -> bool:
    """Whether ``pid`` runs and (when ``ticks`` is given) is the process started at ``ticks``.

    A zombie counts as dead: it has exited and only waits to be reaped.
    """
    if pid is None:
        return False
    fields = stat_fields(pid)
    if fields is None or fields[0] in _DEAD_STATES:
        return False
    return ticks is None or int(fields[19]) == ticks


def spawn_detached(
    argv: Sequence[str],
    cwd: Path,
    log_file: Path,
    *,
    env: Mapping[str, str] | None = None,
    pass_fds: Sequence[int] = (),
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in its own session, output appended to ``log_file``.

    Its own session makes it the leader of its own process group, so it survives
    the daemon and can be stopped with everything it started. ``env`` (default:
    ours) and ``pass_fds`` (descriptors it inherits) go to ``subprocess.Popen``.

    Raises:
        OSError: the program or ``cwd`` cannot be used.
    """
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("ab") as log:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
            pass_fds=pass_fds,
        )


def signal_group(pgid: int, sig: signal.Signals) -> bool:
    """Send ``sig`` to a process group; ``False`` when the group is already empty."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True

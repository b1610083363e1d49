"""One control group per session or gate: made, limited, watched, emptied and removed.

Standalone on purpose (standard library only): :mod:`agent.sandbox.enter` runs it with
``python -I -S`` in front of every session and gate; the agent's start-up probe
(:mod:`agent.sandbox.cgroups`) uses the same writes, so what the probe says holds is what
every group gets.

Both cgroup versions are served by the files a group has: cgroup v2's ``memory.max``,
``memory.swap.max``, ``pids.max``, ``cpu.max``, ``memory.events``, ``pids.events`` and
``cgroup.kill``; v1's ``memory.limit_in_bytes``, ``memory.memsw.limit_in_bytes``,
``memory.oom_control``, ``pids.*`` and ``cpu.cfs_*`` (v1 has one hierarchy per
controller, so a group there is one folder per hierarchy).
"""

from __future__ import annotations

import os
import time
from _collections_abc import Callable  # os loaded it: collections.abc would cost 2 ms

signal = __import__("_signal")  # the C core: the module's enums cost 6 ms of a start
CPU_PERIOD_US = 1_000_000
"""The period the CPU quota is counted over: the kernel's longest (its default is 100 ms).
A session's CLI and the test run it waits for spike on every core for a few hundred
milliseconds; over 100 ms periods those spikes were throttled, 5 % of the demo's wall
time (measured), while over a second they fit and sustained use still stays at the
quota."""
KILL_WAIT_S = 2.0
"""How long emptying a group may take (processes dying, a fork bomb racing the kill)."""
_MEMORY_V2 = "memory.max"
_MEMORY_V1 = "memory.limit_in_bytes"


def limit_writes(
    files: set[str], memory_bytes: int | None, processes: int | None, cpus: float | None
) -> list[tuple[str, str]]:
    """The files to write, in order, to give a group with ``files`` these limits (pure).

    Swap is turned off with the memory limit where the group has the file for it (v2's
    ``memory.swap.max``; v1's ``memsw``, which counts memory and swap together and may be
    set only once the memory limit is). The CPU quota is counted over a second
    (:data:`CPU_PERIOD_US`), with a burst of one period's quota where the kernel has it
    (what quiet periods left unused may be spent at once).
    """
    writes: list[tuple[str, str]] = []
    if memory_bytes is not None:
        if _MEMORY_V2 in files:
            writes.append((_MEMORY_V2, str(memory_bytes)))
            if "memory.swap.max" in files:
                writes.append(("memory.swap.max", "0"))
        elif _MEMORY_V1 in files:
            writes.append((_MEMORY_V1, str(memory_bytes)))
            if "memory.memsw.limit_in_bytes" in files:
                writes.append(("memory.memsw.limit_in_bytes", str(memory_bytes)))
    if processes is not None and "pids.max" in files:
        writes.append(("pids.max", str(processes)))
    if cpus is not None:
        quota = max(1000, round(cpus * CPU_PERIOD_US))
        if "cpu.max" in files:
            writes.append(("cpu.max", f"{quota} {CPU_PERIOD_US}"))
        elif "cpu.cfs_quota_us" in files:
            writes.append(("cpu.cfs_period_us", str(CPU_PERIOD_US)))
            writes.append(("cpu.cfs_quota_us", str(quota)))
        burst = "cpu.max.burst" if "cpu.max" in files else "cpu.cfs_burst_us"
        if burst in files:
            writes.append((burst, str(quota)))
    return writes


def make(parent: str, name: str) -> str:
    """A new group ``name`` below ``parent`` (an existing one of that name is an error:
    names carry a pid, so it can only be a dead process's, swept first)."""
    path = os.path.join(parent, name)
    os.mkdir(path)
    return path


def limit(
    group: str, memory_bytes: int | None, processes: int | None, cpus: float | None
) -> list[str]:
    """Write the limits ``group`` has files for; the names of those that failed."""
    failed = []
    for name, value in limit_writes(set(os.listdir(group)), memory_bytes, processes, cpus):
        try:
            with open(os.path.join(group, name), "w") as control:
                control.write(value)
        except OSError as e:
            failed.append(f"{name}: {e.strerror or e}")
    return failed


def join(groups: list[str]) -> None:
    """Move the calling process into every group of ``groups`` (``0``: the writer)."""
    for group in groups:
        with open(os.path.join(group, "cgroup.procs"), "w") as procs:
            procs.write("0")


def counter(text: str, key: str) -> int:
    """The count after ``key`` in an events file (``oom_kill 2``), 0 without one (pure)."""
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


def limit_events(groups: list[str]) -> tuple[int, int]:
    """(processes the OOM killer ended, forks refused at ``pids.max``) in ``groups``."""
    oom = refused = 0
    for group in groups:
        for name, key in (("memory.events", "oom_kill"), ("memory.oom_control", "oom_kill")):
            oom += counter(_read(os.path.join(group, name)), key)
        refused += counter(_read(os.path.join(group, "pids.events")), "max")
    return oom, refused


def pids(group: str) -> list[int]:
    """The processes in ``group`` (none once it is gone)."""
    return [int(line) for line in _read(os.path.join(group, "cgroup.procs")).split()]


def kill_all(group: str, reap: Callable[[], object] | None = None) -> bool:
    """Kill every process in ``group``; whether it is empty within :data:`KILL_WAIT_S`.

    cgroup v2's ``cgroup.kill`` kills the group at once, forks in flight included;
    elsewhere each round kills what the group lists until a round finds it empty (a
    process forked meanwhile is listed at the next round; ``pids.max`` bounds a race).
    ``reap`` collects the dead among the caller's children after each round (the caller
    is their subreaper, and a zombie stays listed until it is reaped).
    """
    try:
        with open(os.path.join(group, "cgroup.kill"), "w") as kill:
            kill.write("1")
    except OSError:
        pass  # cgroup v1, or a kernel before 5.14: the rounds below do it
    ends = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < ends:
        found = pids(group)
        if not found:
            return True
        for pid in found:
            _signal(pid, signal.SIGKILL)
        if reap is not None:
            reap()
        time.sleep(0.005)
    return not pids(group)


def remove(group: str) -> None:
    """Remove ``group`` (emptied first); a group still busy is left for the next sweep."""
    for _ in range(50):
        try:
            os.rmdir(group)
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.01)  # its last processes are still leaving


def sweep(parent: str, every: bool = False) -> None:
    """Empty and remove the groups below ``parent`` whose process is gone (named
    ``what-PID``): left by a launcher killed outright, as a gate's timeout kills it.
    ``every``: all of them (their agent is ending)."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        _, _, pid = name.rpartition("-")
        path = os.path.join(parent, name)
        gone = pid.isdigit() and not os.path.exists(f"/proc/{pid}")
        if os.path.isdir(path) and (every or gone):
            kill_all(path)
            remove(path)


def descendants(pid: int) -> list[int]:
    """Every living descendant of ``pid`` (``/proc``'s children lists, per thread): the
    group of a command where there is no cgroup (the launcher is its subreaper)."""
    found: list[int] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        try:
            threads = os.listdir(f"/proc/{parent}/task")
        except OSError:
            continue
        for thread in threads:
            children = _read(f"/proc/{parent}/task/{thread}/children")
            pending += [int(child) for child in children.split()]
        if parent != pid:
            found.append(parent)
    return found


def kill_descendants(reap: Callable[[], object]) -> None:
    """Stop every descendant of this process until no new one appears, then kill them all.

    Stopped processes cannot fork, so a walk that finds nothing new has seen them all (as
    their subreaper, this process inherits every orphan among them)."""
    stopped: set[int] = set()
    ends = time.monotonic() + KILL_WAIT_S
    while time.monotonic() < ends:
        found = set(descendants(os.getpid()))
        if not found - stopped:
            break
        for pid in found - stopped:
            _signal(pid, signal.SIGSTOP)
        stopped |= found
    for pid in stopped:
        _signal(pid, signal.SIGKILL)
    while descendants(os.getpid()) and time.monotonic() < ends:
        reap()
        time.sleep(0.005)
    reap()


def _signal(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except OSError:
        pass  # gone meanwhile


def _read(path: str) -> str:
    try:
        with open(path) as control:
            return control.read()
    except OSError:
        return ""

"""What the agent puts in front of every session, gate and replay: the launcher and its limits.

The launcher (:mod:`agent.sandbox.enter`) runs under the base interpreter with ``-I -S``,
like the relay; it is started as a module through a one-line ``-c`` (its bytecode is
cached, a script's is compiled at every start: 5–10 ms of each), with the harness's code
folder appended to its ``sys.path``. Pure: building the command line and the lines that
say which limits hold starts nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.sandbox.cgroups import AgentGroups
from agent.sandbox.enter import REPORT_VARIABLE
from common.schemas.limits import Limits, MachineLimits

CODE_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding ``agent/``: appended to the launcher's ``sys.path``."""
INSIDE_TMPFS = ("/tmp", "/var/tmp", "/run")
"""The sandbox's RAM-backed folders besides the home (sized, and watched for filling)."""
REPORT_MAX = 4096
_STUB = (
    "import sys; sys.path.append(sys.argv.pop(1)); "
    "from agent.sandbox.enter import main; sys.exit(main(sys.argv[1:]))"
)
_HOW = {"memory": "memory", "pids": "processes", "cpu": "cpu"}

__all__ = ["REPORT_VARIABLE", "Entry", "machine_limits", "read_report"]


def launcher_python() -> Path:
    """The base interpreter under the harness's venv (the relay's too)."""
    return Path(getattr(sys, "_base_executable", sys.executable)).resolve()


@dataclass(frozen=True)
class Entry:
    """The launcher's command line for this agent: its groups and the limits that hold."""

    limits: Limits
    parents: tuple[str, ...] = ()
    """The agent's own groups (:mod:`agent.sandbox.cgroups`), one per hierarchy."""
    held: frozenset[str] = frozenset()
    """The controllers the probe found holding (only those are asked of each group)."""
    disk_max_kb: int | None = None
    """The most a work tree may take: the project's size at the run's start plus the
    budget (``None``: no budget, or no baseline)."""
    python: Path = Path(sys.executable)

    @classmethod
    def for_agent(cls, limits: Limits, found: AgentGroups, baseline_kb: int | None) -> Entry:
        """The entry of an agent whose groups are ``found`` and whose project took
        ``baseline_kb`` at the run's start."""
        budget = limits.disk_mb
        most = None
        if budget is not None and baseline_kb is not None:
            most = baseline_kb + budget * 1024
        return cls(
            limits=limits,
            parents=tuple(found.parents),
            held=frozenset(found.held),
            disk_max_kb=most,
            python=launcher_python(),
        )

    def argv(self, what: str, *, tmpfs: Sequence[str] = (), subreaper: bool = False) -> list[str]:
        """The launcher in front of a ``what`` (``session``, ``gate``), up to its ``--``.

        ``tmpfs``: the sandbox's RAM-backed folders, as seen inside, to watch for filling
        (none unsandboxed: the host's ``/tmp`` is not the session's). ``subreaper``: the
        command runs without the sandbox, whose PID namespace would keep its orphans in."""
        limits = self.limits
        argv = [str(self.python), "-I", "-S", "-c", _STUB, str(CODE_ROOT), "--what", what]
        argv += ["--subreaper"] if subreaper else []
        for parent in self.parents:
            argv += ["--group", parent]
        asked = {
            "memory": ("--memory-mb", limits.memory_mb),
            "pids": ("--processes", limits.processes),
            "cpu": ("--cpus", limits.cpus),
        }
        for controller, (option, value) in asked.items():
            if controller in self.held and value is not None:
                argv += [option, f"{value:g}" if isinstance(value, float) else str(value)]
        if limits.file_size_mb is not None:
            argv += ["--file-size-mb", str(limits.file_size_mb)]
        for path in tmpfs:
            argv += ["--tmpfs", path]
        if tmpfs:
            argv += ["--tmpfs-mb", str(limits.tmpfs_mb)]
        if self.disk_max_kb is not None and limits.disk_mb is not None:
            argv += ["--disk-max-kb", str(self.disk_max_kb), "--disk-mb", str(limits.disk_mb)]
        return [*argv, "--"]


def bare_argv(what: str) -> list[str]:
    """The launcher with no limit: only its subreaper and its end (nothing outlives the
    command); for a command run where no agent gave limits (a replay without a wrap)."""
    python = str(launcher_python())
    return [python, "-I", "-S", "-c", _STUB, str(CODE_ROOT), "--what", what, "--subreaper", "--"]


def machine_limits(
    limits: Limits, found: AgentGroups, *, sandboxed: bool, baseline_kb: int | None
) -> MachineLimits:
    """Which limits hold here and which could not be set, one line each (pure)."""
    held: list[str] = []
    not_set: list[str] = []
    cores = f"{limits.cpus:g}" if limits.cpus is not None else ""
    values = {
        "memory": f"memory {limits.memory_mb} MB per session or gate, swap off",
        "pids": f"processes {limits.processes} per session or gate",
        "cpu": f"cpu {cores} core(s) per session or gate",
    }
    still = (
        "only the tmpfs sizes bound what files in RAM take"
        if sandboxed
        else "nothing bounds what a session allocates"
    )
    for controller, line in values.items():
        if controller in found.held:
            held.append(f"{line} ({found.held[controller]})")
        elif controller in found.not_set:
            why = found.not_set[controller] + (f" ({still})" if controller == "memory" else "")
            not_set.append(f"{_HOW[controller]}: {why}")
    if limits.file_size_mb is not None:
        held.append(f"file size {limits.file_size_mb} MB (RLIMIT_FSIZE)")
    if sandboxed:
        held.append(f"tmpfs {limits.tmpfs_mb} MB each for /tmp, /var/tmp, /run and the home")
    if limits.disk_mb is not None and baseline_kb is not None:
        held.append(
            f"disk {limits.disk_mb} MB beyond the project's {shown_kb(baseline_kb)} at the "
            "run's start, per work tree (measured every 10 s and after each session and gate)"
        )
    elif limits.disk_mb is not None:
        not_set.append("disk: the project could not be measured at the run's start")
    return MachineLimits(held=held, not_set=not_set)


def shown_kb(kb: int) -> str:
    """A size for people: ``12 KB``, ``3.4 MB``, ``2.0 GB`` (pure)."""
    if kb < 1024:
        return f"{kb} KB"
    if kb < 1024 * 1024:
        return f"{kb / 1024:.1f} MB"
    return f"{kb / 1024 / 1024:.1f} GB"


def read_report(path: Path) -> tuple[str, str] | None:
    """The limit the launcher wrote to ``path`` (kind, line), removed once read; ``None``
    when it wrote none. Read without following a link, at most :data:`REPORT_MAX` bytes."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        text = os.read(descriptor, REPORT_MAX).decode(errors="replace")
    finally:
        os.close(descriptor)
        path.unlink(missing_ok=True)
    kind, _, line = text.strip().partition(" ")
    return (kind, line.splitlines()[0]) if line else None

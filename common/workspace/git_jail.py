"""A jail of its own for every git the harness runs on a project.

Why: :mod:`common.workspace.git_guard` switches off every program the repository
could name, and the harness never descends into a nested repository. That is a list,
and git grows new ways to run a program. So the harness's git also runs where a
program that slipped through anyway finds nothing to act on: a bubblewrap with no
network, no ``HARNESS_HOME`` (decision key, daemon socket), no home, no other
workspace, no variable of the harness; only the system folders (read-only), the git
binary's own folders, and the repository (writable, its ``.git`` included) without
the harness's workspace in it.

Where bubblewrap cannot run (measured once per process by :func:`common.bwrap.probe`)
the harness's git runs unjailed but still hardened by the guard; :func:`status` says
which, so an agent can log it. The sessions refuse to run in that case anyway unless
the spec says ``"sandbox": false``.

Pure apart from the one probe and :func:`git_binary`: :func:`argv` builds the command
line and :func:`environ` the environment.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from common import bwrap
from common.harness_path import harness_path

KEPT_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ")
"""The caller's variables a jailed git keeps besides its own ``GIT_*`` ones."""

INSIDE_HOME = "/tmp"
"""``HOME`` inside: an empty tmpfs (the guard already switched the global config off)."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Jail:
    """What one jailed git may see besides the system: the repository and the caller's extras."""

    repo: Path
    """Writable at its own path, ``.git`` included."""
    writable: tuple[Path, ...] = ()
    """More folders writable inside (a scratch index, a clone's target, a linked git dir)."""
    read_only: tuple[Path, ...] = ()
    """More folders visible read-only (a clone's source)."""
    network: bool = False
    """Share the host's network (only a push or ls-remote)."""
    hidden: tuple[Path, ...] = ()
    """Folders of the repository covered by an empty read-only one (the harness's
    workspace: its checkpoints, decisions and state are none of git's business)."""


@cache
def _probed() -> tuple[Path | None, str | None]:
    """bwrap here and why it cannot jail, probed once per process (a probe starts one)."""
    found = bwrap.find_bwrap()
    reason = bwrap.probe(found)
    if reason is not None:
        _log.warning("the harness's git runs unjailed (hardened only): %s", reason)
    return found, reason


def runner() -> Path | None:
    """The bwrap that jails the harness's git here, or ``None`` (logged once) when none runs."""
    found, reason = _probed()
    return found if reason is None else None


def status() -> str:
    """One line for an agent's log: jailed or not, and why not."""
    _found, reason = _probed()
    if reason is None:
        return "the harness's git runs in a jail of its own (bubblewrap, no network)"
    return f"the harness's git runs unjailed (hardened only): {reason}"


def git_binary() -> tuple[Path, Path | None]:
    """The git the harness runs (resolved on ``PATH`` now) and its exec path, if any."""
    return _binary_on(os.environ.get("PATH", ""))


@cache
def _binary_on(path: str) -> tuple[Path, Path | None]:
    """:func:`git_binary` for one ``PATH``: looked up once, not at every git call, and
    never in a folder a model could have written (:mod:`common.harness_path`)."""
    found = shutil.which("git", path=harness_path(path))
    binary = Path(found).resolve() if found else Path("/usr/bin/git")
    return binary, _exec_path(binary)


@cache
def _exec_path(binary: Path) -> Path | None:
    """``git --exec-path`` of ``binary`` (asked once per binary)."""
    try:
        done = subprocess.run(
            [str(binary), "--exec-path"], capture_output=True, text=True, check=False
        )
    except OSError:
        return None
    exec_path = done.stdout.strip()
    return Path(exec_path) if done.returncode == 0 and exec_path else None


def argv(jail: Jail, runner_path: Path, command: Sequence[str]) -> list[str]:
    """The bwrap command line that runs ``command`` (a git command) inside ``jail``.

    Order matters to bwrap: later mounts cover earlier ones; the repository comes last
    but for the caller's extras, so nothing can cover it with something else.
    """
    args = [str(runner_path), *bwrap.isolated_base(network=jail.network)]
    for path in _git_folders():
        args += ["--ro-bind", str(path), str(path)]
    for path in jail.read_only:
        args += ["--ro-bind", str(path), str(path)]
    args += ["--bind", str(jail.repo), str(jail.repo)]
    for path in jail.writable:
        args += ["--bind", str(path), str(path)]
    for path in jail.hidden:
        args += ["--tmpfs", str(path), "--remount-ro", str(path)]
    args += ["--chdir", str(jail.repo), "--", *command]
    return args


def environ(safe: Mapping[str, str]) -> dict[str, str]:
    """The environment of a jailed git: from ``safe`` (already guarded) only git's own
    variables and the locale, with ``HOME`` in the jail's empty ``/tmp``."""
    env = {
        name: value
        for name, value in safe.items()
        if name.startswith("GIT_") or name in KEPT_VARIABLES
    }
    env["HOME"] = INSIDE_HOME
    env.setdefault("PATH", "/usr/bin:/bin")
    return env


def wrap(
    jail: Jail, command: Sequence[str], safe_env: Mapping[str, str]
) -> tuple[list[str], dict[str, str]]:
    """``command`` and its environment, jailed when bubblewrap runs here (else as given)."""
    found = runner()
    if found is None:
        return list(command), dict(safe_env)
    return argv(jail, found, command), environ(safe_env)


def _git_folders() -> list[Path]:
    """The git binary's folder and exec path when they are not under a system folder."""
    binary, exec_path = git_binary()
    folders: list[Path] = []
    for path in (binary.parent, exec_path):
        if path is None or any(path.is_relative_to(system) for system in bwrap.SYSTEM_DIRS):
            continue
        if path not in folders:
            folders.append(path)
    return folders

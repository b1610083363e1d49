"""The places no sandbox may show, whatever a project's files name: the deny list.

Why a deny list on top of the allowlist layout (:mod:`agent.sandbox.plan`): the
layout's extra read-only folders come from the project's venv (its target, its
``pyvenv.cfg`` home, its ``.pth`` files): text in a folder the person or, later, the
model wrote. A ``.pth`` naming ``HARNESS_HOME`` once showed the decision key and the
daemon socket; one naming ``/`` kept bwrap from starting. So every such folder is
checked here against places taken from the harness's own process, never from an
input: the check has no override.

:func:`why_denied` is pure (paths given resolved); :func:`holds_workspaces` looks at
the disk.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from common.harness_code import CODE_ROOT
from common.paths import WORKSPACE_ROOT_NAME, harness_home, socket_path

CACHE_VARIABLE = "HARNESS_ENV_CACHE"
"""Where the harness caches project environments (default ``HARNESS_HOME/envs``)."""
KERNEL_DIRS = (Path("/proc"), Path("/sys"), Path("/dev"), Path("/run"), Path("/var/run"))
"""The host's live kernel and runtime folders (``/run`` holds sockets such as Docker's)."""
HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".claude",
    ".config",
    ".password-store",
    ".local/share/keyrings",
)
"""Folders of a home that hold credentials: never shown, even where the home's other
folders (a Python built by pyenv or uv) may be."""
PRIVATE_PREFIX = "hsbx-"
"""The prefix of an agent's private sandbox folder in the temp folder (its model socket)."""
SCAN_LIMIT = 400
"""Children looked at for other workspaces in one folder: bounded, a site-packages is big."""


@dataclass(frozen=True)
class ProtectedPlaces:
    """The harness's and the user's own places, as this process knows them."""

    harness_home: Path
    socket: Path
    env_cache: Path
    homes: tuple[Path, ...]
    """``$HOME`` and the user's home in the password database (they differ in tests)."""
    temp: Path
    checkout: Path = CODE_ROOT
    """The harness's own code: its checkout (with its venv and ``.env``), or the
    site-packages of an install (with its dependencies and the bundled CLI)."""

    @classmethod
    def of_this_process(cls, environ: Mapping[str, str] | None = None) -> ProtectedPlaces:
        """The places for the environment the agent was started with.

        Call it before the agent drops ``HARNESS_HOME`` and ``HARNESS_ENV_CACHE`` from
        its environment (:func:`agent.process.main.session_environment`).
        """
        environ = os.environ if environ is None else environ
        configured = environ.get("HARNESS_HOME")
        home = Path(configured).expanduser().absolute() if configured else harness_home()
        cache = environ.get(CACHE_VARIABLE)
        homes = {Path.home()}
        with contextlib.suppress(KeyError):  # a uid without a password entry (containers)
            homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
        return cls(
            harness_home=_real(home),
            socket=_real(socket_path(home)),
            env_cache=_real(Path(cache) if cache else home / "envs"),
            homes=tuple(sorted(_real(h) for h in homes)),
            temp=_real(Path(tempfile.gettempdir())),
        )


def _real(path: Path) -> Path:
    """``path`` absolute with its symlinks resolved (as far as they exist)."""
    return Path(os.path.realpath(path))


def _inside(path: Path, folder: Path) -> bool:
    """``path`` is ``folder`` or below it."""
    return path == folder or folder in path.parents


def why_denied(path: Path, places: ProtectedPlaces) -> str | None:
    """Why ``path`` (absolute, resolved) may never be visible, or ``None`` when it may.

    Denied: ``/``; the kernel and runtime folders; ``HARNESS_HOME`` and the socket's
    folder, anything in them (save one environment in the harness's cache) and anything
    holding them; the user's home, its credential folders and anything holding it; the
    temp folder itself and the agents' private folders in it; every harness workspace;
    the harness's own code (its checkout, or the site-packages of an install).
    """
    if path == Path("/"):
        return "the root folder holds everything"
    for kernel in KERNEL_DIRS:
        if _inside(path, kernel):
            return f"the host's {kernel} is never shown"
    if WORKSPACE_ROOT_NAME in path.parts:
        return "a harness workspace (checkpoints, decisions, logs)"
    daemon = [(places.harness_home, "HARNESS_HOME"), (places.socket.parent, "the socket's folder")]
    for folder, name in daemon:
        if _inside(folder, path):
            return f"is or holds {name} ({folder}): the decision key and the daemon socket"
        if _inside(path, folder) and not _one_cached_env(path, places):
            return f"inside {name} ({folder}): the decision key and the daemon socket"
    if path == places.env_cache:
        return "the whole environment cache (only the project's own environment is shown)"
    for home in places.homes:
        if _inside(home, path):
            return f"is or holds the user's home ({home})"
        for secret in HOME_SECRETS:
            folder = home / secret
            if _inside(path, folder) or _inside(folder, path):
                return f"the user's credentials ({folder})"
    if _inside(places.temp, path):
        return f"holds the temp folder ({places.temp}): other agents' private sockets"
    if places.temp in path.parents and path.relative_to(places.temp).parts[0].startswith(
        PRIVATE_PREFIX
    ):
        return "an agent's private sandbox folder (its model socket)"
    if _inside(path, places.checkout) or _inside(places.checkout, path):
        return f"the harness's own code, its checkout or install ({places.checkout})"
    return None


def _one_cached_env(path: Path, places: ProtectedPlaces) -> bool:
    """``path`` is in one environment of the harness's cache, and that cache holds
    neither the daemon's home nor its socket (docs/security.md: that one folder shows)."""
    cache = places.env_cache
    strictly_inside = cache in path.parents
    cache_is_safe = not _inside(places.harness_home, cache) and not _inside(
        places.socket.parent, cache
    )
    return strictly_inside and cache_is_safe


def holds_workspaces(path: Path, limit: int = SCAN_LIMIT) -> bool:
    """``path`` or one of its first ``limit`` sub-folders holds a harness workspace.

    Why: an editable install of a sibling repository is legitimate; that repository's
    own ``.claude-agent`` (another run's checkpoints and decisions) is not.
    """
    if (path / WORKSPACE_ROOT_NAME).exists():
        return True
    try:
        with os.scandir(path) as entries:
            for count, entry in enumerate(entries):
                if count >= limit:
                    break
                if (
                    entry.is_dir(follow_symlinks=False)
                    and (Path(entry.path) / WORKSPACE_ROOT_NAME).exists()
                ):
                    return True
    except OSError:
        return False
    return False

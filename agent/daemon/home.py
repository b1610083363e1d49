"""The daemon's private folder: created 0700, one daemon at a time, a usable socket path."""

from __future__ import annotations

import fcntl
import logging
import os
import stat
from pathlib import Path

from common.atomic import read_model_or_none
from common.errors import DaemonError, StateFileError
from common.paths import daemon_status_path, socket_path
from common.schemas.daemon_state import DaemonStatusFile

log = logging.getLogger(__name__)

PRIVATE_MODE = 0o700


def ensure_home(home: Path) -> Path:
    """Create ``home`` readable by its owner only, tightening an existing folder.

    The socket inside accepts commands that start processes, so nobody else may
    reach it; the folder's mode is the access control.
    """
    home.mkdir(mode=PRIVATE_MODE, parents=True, exist_ok=True)
    if stat.S_IMODE(home.stat().st_mode) != PRIVATE_MODE:
        home.chmod(PRIVATE_MODE)
    return home


def already_running_message(home: Path, status: DaemonStatusFile | None = None) -> str:
    """``daemon already running (pid N, socket PATH)``, from the status file when known."""
    if status is None:
        status = read_status(home)
    if status is None:
        return f"daemon already running (pid unknown, socket {socket_path(home)})"
    return f"daemon already running (pid {status.pid}, socket {status.socket})"


def read_status(home: Path) -> DaemonStatusFile | None:
    """The status file, or ``None`` when it is missing or unreadable.

    An unreadable status file is logged and treated as absent: the next daemon
    to start overwrites it, so refusing to start over it would help nobody.
    """
    path = daemon_status_path(home)
    try:
        return read_model_or_none(path, DaemonStatusFile)
    except StateFileError as e:
        log.warning("ignoring the status file: %s", e)
        return None


def claim_home(home: Path) -> int:
    """Hold an exclusive ``flock`` on ``home`` for the daemon's lifetime.

    It closes the gap between "no daemon answers" and "this one is listening", so
    two daemons started at once cannot both take the socket. The kernel releases
    the lock when the process dies, however it dies; the descriptor is not
    inherited by agents (Python opens it close-on-exec).

    Returns:
        The locked descriptor; close it to release the lock.

    Raises:
        DaemonError: another daemon holds the lock.
    """
    fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as e:
        os.close(fd)
        raise DaemonError(already_running_message(home)) from e
    return fd


def private_log(path: Path) -> Path:
    """Create ``path`` (or tighten it) so only its owner can read it: mode 0600.

    Why: the daemon's log names agents, projects and failures; other local users
    have no business reading it, whatever the umask was.
    """
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path

"""Where the daemon listens, and what to tell a person when nothing does.

Apart from :mod:`agent.daemon.home` (which reads the daemon's status file through its
schema) so that the lightest client finds the socket with the standard library alone.
"""

from __future__ import annotations

import os
from pathlib import Path

from common.errors import DaemonError
from common.paths import MAX_SOCKET_PATH, socket_path


def checked_socket_path(home: Path) -> Path:
    """The socket path of ``home``, refused when AF_UNIX cannot bind it.

    Raises:
        DaemonError: the path is longer than ``MAX_SOCKET_PATH`` bytes.
    """
    path = socket_path(home)
    length = len(os.fsencode(path))
    if length > MAX_SOCKET_PATH:
        raise DaemonError(
            f"socket path {path} is {length} bytes, more than the {MAX_SOCKET_PATH} a Unix "
            "socket allows; point HARNESS_HOME at a shorter folder"
        )
    return path


def not_running_message(socket: Path) -> str:
    """What to tell a person when nothing answers on ``socket``."""
    return f"daemon is not running (socket {socket}); start it with `harness daemon start`"

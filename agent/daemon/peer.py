"""Who is on the other end of a daemon connection: the peer's uid, from the kernel.

Why: the socket's folder is 0700, but a folder mode is one mistake (or one
``chmod``) away from open. ``SO_PEERCRED`` is what the kernel recorded when the
peer connected, so it cannot be claimed in a frame; the daemon serves only its
own uid.
"""

from __future__ import annotations

import socket
import struct

_UCRED = struct.Struct("3i")  # pid, uid, gid as the kernel's struct ucred


def peer_uid(sock: socket.socket | None) -> int | None:
    """The uid of the process that connected ``sock`` (``None``: not a Unix socket)."""
    if sock is None or sock.family != socket.AF_UNIX:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    except OSError:
        return None
    _pid, uid, _gid = _UCRED.unpack(raw)
    return int(uid)

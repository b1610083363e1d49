"""Who is on the other end of a daemon connection, from the kernel: uid and process.

Why: the socket's folder is 0700, but a folder mode is one mistake (or one
``chmod``) away from open. ``SO_PEERCRED`` is what the kernel recorded when the
peer connected, so it cannot be claimed in a frame; the daemon serves only its
own uid.

The same uid is not enough: an agent's sandbox runs as that uid too. So the daemon
also reads the peer *process* (its namespaces, session, group and ancestry, from
``/proc``) and :mod:`agent.daemon.peer_rules` decides. The process is named by
``SO_PEERPIDFD`` (Linux 6.5+): a pidfd of the very process that connected, which no
later process can take over, so a pid reused between ``connect()`` and the check
cannot pass for the peer. The facts are read by pid and then the pidfd is asked
whether that process still lives: if it does, the pid was its own all along.
Without ``SO_PEERPIDFD`` the pid of ``SO_PEERCRED`` is used, and that small window
stays open (see docs/security.md).
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import struct
from pathlib import Path

from agent.daemon.peer_rules import Ancestor, Namespaces, PeerProcess
from agent.daemon.procs import stat_fields

_UCRED = struct.Struct("3i")  # pid, uid, gid as the kernel's struct ucred

#: ``SO_PEERPIDFD`` of asm-generic/socket.h (x86, arm, riscv...); Python 3.11 lacks the name.
SO_PEERPIDFD = getattr(socket, "SO_PEERPIDFD", 77)

#: A lineage longer than this is a loop or a lie; the peer is refused.
MAX_LINEAGE = 4096

# Fields of /proc/PID/stat after the command name (see procs.stat_fields).
_PPID, _PGRP, _SESSION, _START = 1, 2, 3, 19


def peer_uid(sock: socket.socket | None) -> int | None:
    """The uid of the process that connected ``sock`` (``None``: not a Unix socket)."""
    credentials = _peer_credentials(sock)
    return None if credentials is None else credentials[1]


def own_namespaces() -> Namespaces:
    """The PID and mount namespaces of this process (the daemon)."""
    found = _namespaces("self")
    assert found is not None, "/proc/self/ns is always readable"
    return found


def peer_process(sock: socket.socket | None) -> PeerProcess | None:
    """The process that connected ``sock``, ``None`` when it cannot be known for sure.

    ``None`` covers: not a Unix socket, a peer that exited before it was read, a
    peer whose ``/proc`` cannot be read (another PID namespace that hides it, a
    non-dumpable process) and a pidfd that no longer names a live process.
    """
    if sock is None or sock.family != socket.AF_UNIX:
        return None
    try:
        pidfd = sock.getsockopt(socket.SOL_SOCKET, SO_PEERPIDFD)
    except OSError as e:
        if e.errno not in (errno.ENOPROTOOPT, errno.EINVAL):
            return None  # ESRCH and the like: the peer is gone
        return _read_by_pid(sock)  # a kernel before 6.5: the pid of SO_PEERCRED
    try:
        pid = _pidfd_pid(pidfd)
        if pid is None:
            return None
        found = read_process(pid)
        return found if found is not None and _still_alive(pidfd) else None
    finally:
        os.close(pidfd)


def read_process(pid: int) -> PeerProcess | None:
    """Namespaces, session, group and lineage of ``pid``; ``None`` if any part is unreadable.

    An ancestor that exits while the lineage is read also gives ``None``: an
    incomplete lineage could hide the agent the peer descends from.
    """
    namespaces = _namespaces(str(pid))
    first = stat_fields(pid) if namespaces is not None else None
    if namespaces is None or first is None:
        return None
    lineage: list[Ancestor] = []
    current, fields = pid, first
    while True:
        lineage.append(Ancestor(pid=current, start_ticks=int(fields[_START])))
        parent = int(fields[_PPID])
        if parent == 0:  # pid 1, or a process whose parent is outside our PID namespace
            break
        if len(lineage) >= MAX_LINEAGE:
            return None
        next_fields = stat_fields(parent)
        if next_fields is None:
            return None
        current, fields = parent, next_fields
    return PeerProcess(
        pid=pid,
        namespaces=namespaces,
        session=int(first[_SESSION]),
        group=int(first[_PGRP]),
        lineage=tuple(lineage),
    )


def _peer_credentials(sock: socket.socket | None) -> tuple[int, int, int] | None:
    """``(pid, uid, gid)`` of ``SO_PEERCRED``, ``None`` when ``sock`` is no Unix socket."""
    if sock is None or sock.family != socket.AF_UNIX:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    except OSError:
        return None
    pid, uid, gid = _UCRED.unpack(raw)
    return int(pid), int(uid), int(gid)


def _read_by_pid(sock: socket.socket) -> PeerProcess | None:
    credentials = _peer_credentials(sock)
    if credentials is None or credentials[0] <= 0:  # 0: not visible in our PID namespace
        return None
    return read_process(credentials[0])


def _namespaces(pid: str) -> Namespaces | None:
    try:
        folder = Path(f"/proc/{pid}/ns")
        return Namespaces(
            pid=str((folder / "pid").readlink()), mnt=str((folder / "mnt").readlink())
        )
    except OSError:  # gone, or not ours to inspect (non-dumpable)
        return None


def _pidfd_pid(pidfd: int) -> int | None:
    """The pid a pidfd names in our PID namespace; ``None``: exited (-1) or not visible (0)."""
    try:
        info = Path(f"/proc/self/fdinfo/{pidfd}").read_text()
    except OSError:
        return None
    for line in info.splitlines():
        if line.startswith("Pid:"):
            pid = int(line.split()[1])
            return pid if pid > 0 else None
    return None


def _still_alive(pidfd: int) -> bool:
    """Whether the process of ``pidfd`` has not exited (signal 0 checks without sending)."""
    try:
        signal.pidfd_send_signal(pidfd, 0)
    except ProcessLookupError:
        return False
    return True

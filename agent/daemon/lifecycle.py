"""Is the daemon running? Start it detached, stop it, wait until its socket answers.

"Running" means all three: ``daemon.json`` exists, its pid is alive, and its
socket accepts a connection. Anything less is a leftover of a dead daemon.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
from collections.abc import Sequence
from contextlib import aclosing
from pathlib import Path

from watchfiles import awatch

from agent.daemon.address import checked_socket_path
from agent.daemon.client import DaemonClient
from agent.daemon.home import ensure_home, private_log, read_status
from agent.daemon.procs import is_alive
from common.errors import DaemonError
from common.harness_code import module_command
from common.paths import daemon_log_path, harness_home
from common.schemas.daemon_state import DaemonStatusFile
from common.secrets import gitlab_secrets, secrets_in, start_with_secrets, without_secrets

#: How long a connect to the status file's socket may take before it counts as dead.
CONNECT_TIMEOUT = 1.0


def daemon_running(home: Path | None = None) -> DaemonStatusFile | None:
    """The running daemon's status file, or ``None`` when no daemon answers."""
    home = home or harness_home()
    status = read_status(home)
    if status is None or not is_alive(status.pid, None):
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(CONNECT_TIMEOUT)
        try:
            probe.connect(str(status.socket))
        except OSError:
            return None
    return status


async def start_daemon(
    home: Path | None = None, *, wait_seconds: float = 10.0, daemon_args: Sequence[str] = ()
) -> DaemonStatusFile:
    """Start ``python -m agent.daemon`` detached, unless one already runs.

    The daemon gets its own session (it outlives the caller) and writes its output
    to the daemon log. This returns once its socket answers with ``Hello``.

    Args:
        home: the daemon's folder; default ``HARNESS_HOME``.
        wait_seconds: how long to wait for the socket to answer.
        daemon_args: extra arguments for ``python -m agent.daemon``.

    Returns:
        The status file of the daemon that answers (possibly one that was already running).

    Raises:
        DaemonError: the daemon exited or did not answer in time.
        SecretsError: the secrets in our environment are too large to hand over.
    """
    home = ensure_home(home or harness_home())
    checked_socket_path(home)
    running = daemon_running(home)
    if running is not None:
        return running
    log_path = private_log(daemon_log_path(home))
    process = _spawn_daemon(home, daemon_args, log_path)
    try:
        async with asyncio.timeout(wait_seconds):
            return await _wait_until_answering(home, process, log_path)
    except TimeoutError as e:
        raise DaemonError(
            f"daemon (pid {process.pid}) did not answer within {wait_seconds:g} s; see {log_path}"
        ) from e


async def stop_daemon(home: Path | None = None, *, wait_seconds: float = 10.0) -> bool:
    """Ask the daemon to shut down (its agents keep running).

    Returns:
        ``True`` when a daemon was stopped, ``False`` when none was running.

    Raises:
        DaemonError: the daemon did not close within ``wait_seconds``.
    """
    status = daemon_running(home or harness_home())
    if status is None:
        return False
    try:
        async with asyncio.timeout(wait_seconds):
            async with DaemonClient.connect(status.socket) as client:
                await client.shutdown()
    except TimeoutError as e:
        raise DaemonError(
            f"daemon (pid {status.pid}) did not stop within {wait_seconds:g} s"
        ) from e
    return True


def _spawn_daemon(
    home: Path, daemon_args: Sequence[str], log_path: Path
) -> subprocess.Popen[bytes]:
    """``python -m agent.daemon`` in its own session, its output appended to the log.

    GitLab tokens in our environment reach it through a pipe, never its environment;
    Claude secrets do not reach it at all (each start request carries them).

    Raises:
        SecretsError: the secrets are too large for the pipe (nothing started).
    """
    env = {**without_secrets(os.environ), "HARNESS_HOME": str(home)}
    with log_path.open("ab") as log:
        return start_with_secrets(
            lambda argv, fds: subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
                pass_fds=fds,
            ),
            module_command("agent.daemon", *daemon_args),
            gitlab_secrets(secrets_in(os.environ)),  # Claude's go per agent, in start requests
        )


async def _wait_until_answering(
    home: Path, process: subprocess.Popen[bytes], log_path: Path
) -> DaemonStatusFile:
    """Wait for the daemon's status file, then for its ``Hello``.

    The daemon writes ``daemon.json`` once its socket listens, so a change in the
    home folder is the moment to look; the watch's timeout also notices a daemon
    that exited without ever writing it.
    """
    changes = awatch(
        home,
        watch_filter=None,
        debounce=50,
        step=10,
        rust_timeout=200,
        yield_on_timeout=True,
        recursive=False,
    )
    async with aclosing(changes) as batches:
        async for _ in batches:
            status = await _answering(home)
            if status is not None:
                return status
            code = process.poll()
            if code is not None:
                last = _last_line(log_path)
                raise DaemonError(f"daemon exited with status {code}: {last} (log {log_path})")
    raise DaemonError("watching the daemon's folder ended unexpectedly")


async def _answering(home: Path) -> DaemonStatusFile | None:
    """The status file, if a daemon behind it answers with ``Hello``."""
    status = daemon_running(home)
    if status is None:
        return None
    try:
        async with DaemonClient.connect(status.socket):
            return status
    except DaemonError:
        return None  # it stopped between the probe and the greeting; keep waiting


def _last_line(path: Path) -> str:
    """The last non-empty line of the daemon log, the daemon's own last word."""
    with path.open("rb") as handle:
        handle.seek(max(0, handle.seek(0, os.SEEK_END) - 4096))
        lines = handle.read().decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else "(no output)"

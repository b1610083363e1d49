"""The TUI's line to the daemon: one subscription for watching, short connections for commands.

A subscribing connection serves nothing else, so every command opens its own
connection: a slow ``stop`` never holds up the agent list. When the
subscription drops (the daemon stopped or crashed) the link says so, starts
the daemon again when it may, and subscribes anew; the daemon's registry
survives a restart and the new snapshot brings the view back in step. A daemon
not running yet when the TUI starts is started the same way, after the first paint.

The daemon's client (and with it the schemas of the whole protocol) is imported when
the link first connects, not when the TUI starts: the TUI paints its first screen
before it connects (see :mod:`tui.main`).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeAlias

from common.credentials import check_credentials, credentials_from
from common.errors import HarnessError, ProtocolError
from common.paths import daemon_log_path, socket_path
from common.telemetry import telemetry_from

if TYPE_CHECKING:
    from agent.daemon.client import DaemonClient
    from common.schemas.auto_accept import AutoAcceptRules
    from common.schemas.protocol import AgentEvent, AgentInfo
    from common.schemas.spec import AgentSpec

log = logging.getLogger(__name__)

#: Give up after this many restarts in a row that never brought a snapshot.
MAX_RESTARTS = 3
#: How long :func:`daemon_answers` waits for the daemon to accept.
PROBE_TIMEOUT_S = 1.0
#: What the TUI says before its UI opens when it may not start the daemon.
NOT_RUNNING = (
    "the daemon is not running; start it with `harness daemon start`, "
    "then run `python -m tui.main` again"
)


@dataclass(frozen=True)
class Connection:
    """The link's state, as the status bar shows it."""

    connected: bool
    detail: str = ""


LinkFrame: TypeAlias = "list[AgentInfo] | AgentEvent | Connection"
"""A snapshot of every agent, one agent's change, or news about the connection."""


class AgentLink(Protocol):
    """What the TUI needs from the daemon (tests pass a fake)."""

    def frames(self) -> AsyncIterator[LinkFrame]:
        """The agent list, then changes, until cancelled or the link gives up."""
        ...

    async def start(self, spec: AgentSpec, *, fresh: bool = False) -> AgentInfo:
        """Start an agent for ``spec`` (``fresh``: in a new workspace, though it ran before)."""
        ...

    async def stop(self, name: str) -> AgentInfo:
        """Stop an agent; returns once its process has exited."""
        ...

    async def resume(self, name: str) -> AgentInfo:
        """Start a stopped or failed agent again, under its name, where it ended."""
        ...

    async def remove(self, name: str) -> None:
        """Forget a finished agent."""
        ...

    async def set_auto_accept(self, name: str, rules: AutoAcceptRules | bool) -> AgentInfo:
        """Set one agent's auto-accept rules (``True``/``False``: all or none), signed and
        kept in its workspace."""
        ...


def daemon_answers() -> bool:
    """Whether something accepts connections on the daemon's socket (of ``HARNESS_HOME``).

    The check the TUI makes before its first paint, with the standard library alone: a
    client of the protocol would build every schema of it first. What answers is known
    to be the daemon once the link connects; if it is not, the link says so.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(PROBE_TIMEOUT_S)
        try:
            probe.connect(str(socket_path()))
        except OSError:
            return False
    return True


def _connect() -> AbstractAsyncContextManager[DaemonClient]:
    """A connection to the daemon (the client is imported here: see above)."""
    from agent.daemon.client import DaemonClient

    return DaemonClient.connect()


class DaemonLink:
    """:class:`AgentLink` over the daemon's Unix socket."""

    def __init__(self, *, autostart: bool = True) -> None:
        """
        Args:
            autostart: start the daemon when it is not running or goes away (native mode).
        """
        self.autostart = autostart

    async def frames(self) -> AsyncGenerator[LinkFrame, None]:
        """Subscribe; start the daemon when it does not answer (if allowed) and subscribe
        again. Before the first snapshot the daemon was not lost, only not started yet:
        it is started without a word (the view says "connecting to the daemon…")."""
        restarts = 0
        subscribed = False
        while True:
            try:
                async with _connect() as client:
                    async for frame in client.subscribe():
                        if isinstance(frame, list):
                            restarts, subscribed = 0, True
                            yield Connection(True, f"daemon pid {client.hello.daemon_pid}")
                        yield frame
            except HarnessError as e:
                log.warning("daemon subscription ended: %s", e)
                if isinstance(e, ProtocolError) and not subscribed:
                    # A daemon of another version answers: starting one would find it running.
                    yield Connection(False, str(e))
                    return
                lost = f"lost the daemon: {e}" if subscribed else f"no daemon: {e}"
                if not self.autostart:
                    yield Connection(False, f"{lost}; start it with `harness daemon start`")
                    return
                if restarts >= MAX_RESTARTS:
                    yield Connection(False, f"{lost}; gave up after {restarts} restarts")
                    return
                restarts += 1
                if subscribed:
                    yield Connection(False, f"{lost}; starting it again")
                from agent.daemon import lifecycle  # only to start the daemon

                try:
                    await lifecycle.start_daemon()
                except HarnessError as start_error:
                    yield Connection(
                        False,
                        f"cannot start the daemon: {start_error} (log: {daemon_log_path()})",
                    )
                    return

    async def start(self, spec: AgentSpec, *, fresh: bool = False) -> AgentInfo:
        """Start ``spec`` with this TUI's Claude credentials (refused here when it has none)."""
        credentials = credentials_from(os.environ)
        check_credentials(spec, credentials)
        async with _connect() as client:
            return await client.start(
                spec, credentials, fresh=fresh, telemetry=telemetry_from(os.environ)
            )

    async def stop(self, name: str) -> AgentInfo:
        async with _connect() as client:
            return await client.stop(name, client="tui")  # the agent says who stopped it

    async def resume(self, name: str) -> AgentInfo:
        """Resume ``name`` with this TUI's Claude credentials (the agent's own spec decides
        whether it needs any)."""
        async with _connect() as client:
            return await client.resume(
                name, credentials_from(os.environ), telemetry_from(os.environ)
            )

    async def remove(self, name: str) -> None:
        async with _connect() as client:
            await client.remove(name)

    async def set_auto_accept(self, name: str, rules: AutoAcceptRules | bool) -> AgentInfo:
        async with _connect() as client:
            return await client.set_auto_accept(name, rules)

"""Whether the process on the other end of a connection may act as a client: pure rules.

Why: the daemon's socket is reachable by anything running as the daemon's uid, and
the agents' sandboxes, the test gates and (without the sandbox) the model's commands
all run as that uid. The uid (``SO_PEERCRED``) cannot tell them from the person's
``harness`` or TUI; what can is *where* the peer process lives, as the kernel
records it:

- every agent session and every test gate runs in bubblewrap, in PID and mount
  namespaces of its own, while clients (a shell's ``harness``, the TUI, ``docker
  exec`` in the container) share the daemon's;
- every process an agent starts, sandboxed or not, descends from that agent, or at
  least stays in its session or process group until it calls ``setsid()``.

A peer that fails any rule, or whose ``/proc`` could not be read, is refused: the
whole connection, read-only requests included (a sandbox has no business listing the
other agents either). The facts are gathered in :mod:`agent.daemon.peer`; this module
only decides, so every rule is tested without processes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass


@dataclass(frozen=True)
class Namespaces:
    """A process's PID and mount namespaces, as ``/proc/PID/ns/*`` links name them."""

    pid: str
    mnt: str


@dataclass(frozen=True)
class Ancestor:
    """One process of a peer's lineage: its pid and start time (clock ticks since boot)."""

    pid: int
    start_ticks: int


@dataclass(frozen=True)
class PeerProcess:
    """What the kernel says about the process that connected."""

    pid: int
    namespaces: Namespaces
    session: int
    """Its session id (``/proc/PID/stat`` field 6)."""
    group: int
    """Its process group id (field 5)."""
    lineage: tuple[Ancestor, ...]
    """The peer itself first, then its parent, up to pid 1 (or the namespace's edge)."""


@dataclass(frozen=True)
class AgentProcess:
    """A live agent the daemon supervises; it leads its own session and process group."""

    name: str
    pid: int
    start_ticks: int | None
    """``None`` when its start time was not recorded: then the pid alone matches."""

    def is_process(self, process: Ancestor) -> bool:
        """Whether ``process`` is this agent (the pid and, when known, the start time agree)."""
        return process.pid == self.pid and (
            self.start_ticks is None or self.start_ticks == process.start_ticks
        )


#: What a refused peer reads; the log says which rule refused it.
REFUSAL_MESSAGE = (
    "refused: this connection comes from an agent's sandbox or from a process an agent "
    "started; only clients outside every agent may talk to the daemon"
)


def refusal_reason(
    own: Namespaces, peer: PeerProcess | None, agents: Collection[AgentProcess]
) -> str | None:
    """Why ``peer`` may not act as a client of a daemon in namespaces ``own``; ``None``: it may.

    Args:
        own: the daemon's own namespaces.
        peer: the connecting process, ``None`` when its ``/proc`` could not be read (it
            exited before the check, or hid itself): refused, since nothing vouches for it.
        agents: the live agents the daemon supervises.
    """
    if peer is None:
        return (
            "its process could not be read (it exited before the check, lives in a PID "
            "namespace the daemon cannot see, or hides its /proc)"
        )
    if peer.namespaces.pid != own.pid:
        return (
            f"it runs in another PID namespace ({peer.namespaces.pid}, the daemon's is {own.pid})"
        )
    if peer.namespaces.mnt != own.mnt:
        return (
            f"it runs in another mount namespace ({peer.namespaces.mnt}, the daemon's is {own.mnt})"
        )
    for agent in agents:
        if any(agent.is_process(process) for process in peer.lineage):
            if agent.pid == peer.pid:
                return f"it is {agent.name}'s agent process (pid {agent.pid})"
            return f"it descends from {agent.name} (pid {agent.pid})"
        if peer.session == agent.pid:
            return f"it is in the session of {agent.name} (pid {agent.pid})"
        if peer.group == agent.pid:
            return f"it is in the process group of {agent.name} (pid {agent.pid})"
    return None

"""The agent registry (``daemon_state.json``): who was started, as what, with which pid.

It is written atomically after every change, so a daemon killed at any moment
leaves a registry the next daemon can adopt its agents from.
"""

from __future__ import annotations

from pathlib import Path

from common.atomic import read_model_or_none, write_model
from common.errors import DaemonError
from common.schemas.daemon_state import AgentRecord, DaemonState


class Registry:
    """The agents in start order, and the number the next one gets."""

    def __init__(self, path: Path, state: DaemonState) -> None:
        self._path = path
        self._state = state

    @classmethod
    def load(cls, path: Path) -> Registry:
        """Read the registry (an empty one when the file does not exist yet).

        Raises:
            StateFileError: the file is corrupted; it is never silently reset.
        """
        return cls(path, read_model_or_none(path, DaemonState) or DaemonState())

    @property
    def records(self) -> list[AgentRecord]:
        """Every agent, oldest first."""
        return list(self._state.agents)

    def find(self, name: str) -> AgentRecord | None:
        """The agent named exactly ``name``."""
        return next((record for record in self._state.agents if record.name == name), None)

    def resolve(self, name: str) -> AgentRecord:
        """The agent named ``name``, or the only one whose name starts with it.

        Raises:
            DaemonError: no agent, or several, match.
        """
        exact = self.find(name)
        if exact is not None:
            return exact
        matches = [r for r in self._state.agents if name and r.name.startswith(name)]
        if not matches:
            raise DaemonError(f"no agent named {_shown(name)}")
        if len(matches) > 1:
            names = ", ".join(r.name for r in matches)
            raise DaemonError(f"{name} matches several agents ({names}); give the full name")
        return matches[0]

    def next_name(self) -> str:
        """The name the next agent gets; numbers are never reused."""
        return f"agent_{self._state.next_number}"

    def add(self, record: AgentRecord) -> None:
        """Register a started agent and use up its number."""
        self._state.agents = [*self._state.agents, record]
        self._state.next_number += 1
        self.save()

    def mark_stopped_by_user(self, name: str) -> AgentRecord:
        """Note that a person asked this agent to stop (so its death is no failure)."""
        updated: AgentRecord | None = None
        agents: list[AgentRecord] = []
        for record in self._state.agents:
            if record.name == name:
                record = updated = record.model_copy(update={"stopped_by_user": True})
            agents.append(record)
        if updated is None:
            raise DaemonError(f"no agent named {name}")
        self._state.agents = agents
        self.save()
        return updated

    def replace(self, record: AgentRecord) -> None:
        """Write a new version of the agent named ``record.name`` (a resume), in its place."""
        if self.find(record.name) is None:
            raise DaemonError(f"no agent named {record.name}")
        self._state.agents = [record if r.name == record.name else r for r in self._state.agents]
        self.save()

    def remove(self, name: str) -> None:
        """Forget an agent; its workspace stays where it is."""
        self._state.agents = [r for r in self._state.agents if r.name != name]
        self.save()

    def save(self) -> None:
        """Write the registry atomically."""
        write_model(self._path, self._state)


def _shown(name: str, limit: int = 80) -> str:
    """``name`` cut to a readable length: an error should not echo a megabyte back."""
    return name if len(name) <= limit else f"{name[:limit]}..."

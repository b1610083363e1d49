"""Which checkpoints wait for a human, in the order they should be answered.

The book combines two sources: the checkpoint file in each workspace (what is
waiting, read whenever the file changes) and the daemon's view of the agent
(whether its process still runs to act on a decision). A checkpoint counts as
waiting only while both agree, so a dialog never offers a decision nobody will
read. Pressing Esc on a dialog sets the checkpoint aside without deciding it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from common.schemas.agent_status import AgentStatus

if TYPE_CHECKING:  # the schemas load after the first paint (see tui.main)
    from common.schemas.checkpoint import Checkpoint
    from common.schemas.protocol import AgentInfo

#: Agent states in which a process is there to read a decision.
LIVE = frozenset({AgentStatus.RUNNING, AgentStatus.WAITING})


@dataclass(frozen=True)
class Waiting:
    """One pending checkpoint of one agent."""

    agent: str
    workspace: Path
    checkpoint: Checkpoint


class PendingBook:
    """The waiting checkpoints, oldest first, and which ones were set aside."""

    def __init__(self) -> None:
        self._waiting: dict[str, Waiting] = {}
        self._set_aside: set[tuple[str, str]] = set()

    def update(self, agent: AgentInfo, checkpoint: Checkpoint | None) -> None:
        """Record what ``agent``'s checkpoint file holds now (``None``: no file)."""
        if agent.status in LIVE and checkpoint is not None and checkpoint.status == "pending":
            self._waiting[agent.name] = Waiting(agent.name, agent.workspace, checkpoint)
        else:
            self._waiting.pop(agent.name, None)

    def forget(self, agent: str) -> None:
        """The agent was removed."""
        self._waiting.pop(agent, None)

    def decided(self, agent: str, checkpoint_id: str) -> None:
        """This TUI decided the checkpoint; it stops waiting before the file watch says so."""
        current = self._waiting.get(agent)
        if current is not None and current.checkpoint.id == checkpoint_id:
            del self._waiting[agent]

    def set_aside(self, item: Waiting) -> None:
        """Esc: do not show this checkpoint again by itself (it still waits)."""
        self._set_aside.add((item.agent, item.checkpoint.id))

    def take_up(self, agent: str) -> Waiting | None:
        """The user asked for ``agent``'s checkpoint: show it even if it was set aside."""
        item = self._waiting.get(agent)
        if item is not None:
            self._set_aside.discard((item.agent, item.checkpoint.id))
        return item

    def get(self, agent: str) -> Waiting | None:
        """``agent``'s waiting checkpoint, if any."""
        return self._waiting.get(agent)

    def is_waiting(self, item: Waiting) -> bool:
        """Whether ``item`` still waits (not decided elsewhere, agent still running)."""
        current = self._waiting.get(item.agent)
        return current is not None and current.checkpoint.id == item.checkpoint.id

    def waiting(self) -> list[Waiting]:
        """Every waiting checkpoint, oldest first (ties by agent name)."""
        return sorted(self._waiting.values(), key=lambda w: (w.checkpoint.created_at, w.agent))

    def next_to_show(self) -> Waiting | None:
        """The oldest waiting checkpoint that was not set aside."""
        for item in self.waiting():
            if (item.agent, item.checkpoint.id) not in self._set_aside:
                return item
        return None

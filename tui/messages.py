"""Messages that carry news from the TUI's background workers to the running view.

Workers never touch widgets: they post one of these, and the screen's handler
updates the view on the event loop. Tests watch for them with ``message_hook``.
Messages that belong to one widget are nested in that widget's class instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # the protocol's schemas load after the first paint (see tui.main)
    from common.schemas.protocol import AgentInfo


class AgentsReplaced(Message):
    """The daemon's full agent list (first frame of a subscription, and after a reconnect)."""

    def __init__(self, agents: list[AgentInfo]) -> None:
        super().__init__()
        self.agents = agents


class AgentChanged(Message):
    """One agent changed (status, phase, checkpoint, auto-accept) or was removed."""

    def __init__(self, agent: AgentInfo, *, removed: bool = False) -> None:
        super().__init__()
        self.agent = agent
        self.removed = removed


class ConnectionChanged(Message):
    """The daemon link connected, or lost the daemon (``detail`` says what to do)."""

    def __init__(self, connected: bool, detail: str) -> None:
        super().__init__()
        self.connected = connected
        self.detail = detail


class CheckpointFilesChanged(Message):
    """The checkpoint file of these workspaces was written."""

    def __init__(self, workspaces: frozenset[Path]) -> None:
        super().__init__()
        self.workspaces = workspaces

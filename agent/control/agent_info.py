"""The daemon's view of one agent, for the commands that act on it by name."""

from __future__ import annotations

from agent.daemon.client import DaemonClient
from common.schemas.protocol import AgentInfo


async def agent_info(name: str) -> AgentInfo:
    """The daemon's view of agent ``name``.

    Raises:
        DaemonError: the daemon is not running, or has no such agent.
    """
    async with DaemonClient.connect() as client:
        return await client.status(name)

"""The agent's status as the daemon reports it: its own small module, so the front ends'
first screens name a status without building the registry's and the spec's schemas."""

from __future__ import annotations

from enum import StrEnum


class AgentStatus(StrEnum):
    """What a person sees in the agent list."""

    RUNNING = "running"
    WAITING = "waiting"
    """Running, and a checkpoint waits for a decision."""
    STOPPED = "stopped"
    FAILED = "failed"
    DONE = "done"

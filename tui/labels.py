"""How agents, paths and phases read on screen; one place, so every view says the same."""

from __future__ import annotations

import os
from pathlib import Path

from common.schemas.agent_state import Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo


def display_path(path: Path) -> str:
    """``path`` with the home folder shown as ``~`` (shorter, and the same on every machine)."""
    home = os.environ.get("HOME")
    if home:
        try:
            relative = path.relative_to(home)
        except ValueError:
            return str(path)
        return "~" if relative == Path() else f"~/{relative}"
    return str(path)


def typed_path(text: str) -> Path:
    """What a person typed as a path: ``~`` expanded, relative to the working folder."""
    return Path(text.strip()).expanduser().absolute()


def mode(info: AgentInfo) -> str:
    """``AUTO`` when checkpoints are answered with their defaults, ``HITL`` otherwise;
    ``UNSANDBOXED`` added when its sessions run outside the OS sandbox."""
    answers = "AUTO" if info.auto_accept else "HITL"
    return answers if info.sandboxed else f"{answers} UNSANDBOXED"


def status(info: AgentInfo) -> str:
    """The status column: ``waiting: issue_selection`` says what the agent waits for."""
    if info.status is AgentStatus.WAITING and info.pending_checkpoint is not None:
        return f"waiting: {info.pending_checkpoint.value}"
    return info.status.value


def phase(value: Phase | None) -> str:
    """A phase as words (``issue selection``); ``starting`` before the agent reported one."""
    return value.value.replace("_", " ") if value is not None else "starting"


def title(value: str) -> str:
    """A checkpoint type as a heading: ``ISSUE SELECTION``."""
    return value.replace("_", " ").upper()

"""``.stop_note.json``: who asked the daemon to stop an agent, for the agent to say so.

Why: the agent sees only a SIGTERM, so it ended "stopped by signal", and the webhook
announced a person's ``harness stop`` (or the TUI's ``s``) as "agent ended", naming
nobody. The daemon writes this note into the workspace just before it signals the
agent; the agent reads it as it stops and says who stopped it. The note names the pid
it is for, so an old note never explains a later signal (a ``kill`` by hand).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import Field

from common.atomic import read_model_or_none, write_model
from common.errors import HarnessError
from common.schemas.base import StrictModel, utc_now

NOTE_NAME = ".stop_note.json"
#: The reason an agent gives when nobody it knows of asked it to stop.
BY_SIGNAL = "stopped by signal"


class StopNote(StrictModel):
    schema_version: Literal[1] = 1
    pid: int
    """The agent process the stop is for."""
    by: str
    """Who asked: ``<client>:<user>``, as a decision names its decider."""
    at: datetime = Field(default_factory=utc_now)


def write_note(workspace: Path, pid: int, by: str) -> None:
    """Leave the note for the agent ``pid`` (the daemon, just before SIGTERM)."""
    write_model(workspace / NOTE_NAME, StopNote(pid=pid, by=by))


def stop_reason(workspace: Path, pid: int) -> str:
    """``stopped by cli:alice`` when a note for ``pid`` says who, else ``stopped by signal``."""
    try:
        note = read_model_or_none(workspace / NOTE_NAME, StopNote)
    except HarnessError:
        return BY_SIGNAL  # a damaged note explains nothing
    if note is None or note.pid != pid:
        return BY_SIGNAL
    return f"stopped by {note.by}"

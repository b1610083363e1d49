"""``$HARNESS_HOME/tui_memory.json``: what the TUI remembers between runs (written by it)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from common.schemas.base import StrictModel


class TuiMemory(StrictModel):
    schema_version: Literal[1] = 1
    last_repository: Path | None = None
    """The repository the wizard last started an agent on; the wizard opens there."""

"""Reading the TUI's settings and memory from ``$HARNESS_HOME`` (see the schemas).

The schemas (and pydantic with them) are imported when a file is read, not when the
TUI starts: a person without a settings file gets the TUI's first screen without them.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from common.errors import StateFileError
from common.paths import harness_home

if TYPE_CHECKING:
    from common.schemas.tui_memory import TuiMemory
    from common.schemas.tui_settings import TuiSettings

log = logging.getLogger(__name__)


def settings_path() -> Path:
    return harness_home() / "tui_settings.json"


def memory_path() -> Path:
    return harness_home() / "tui_memory.json"


def load_settings() -> TuiSettings:
    """The person's settings; the defaults when there is no file.

    Raises:
        StateFileError: the file exists but is not valid (said before the UI opens).
    """
    from common.atomic import read_model_or_none
    from common.schemas.tui_settings import TuiSettings

    return read_model_or_none(settings_path(), TuiSettings) or TuiSettings()


def load_settings_if_any() -> TuiSettings | None:
    """The person's settings, or ``None`` when there is no file: the TUI then builds the
    defaults when it first needs them, after its first paint.

    Raises:
        StateFileError: the file exists but is not valid (said before the UI opens).
    """
    return load_settings() if settings_path().exists() else None


def load_memory() -> TuiMemory:
    """What the last run remembered; a broken file is forgotten (it only holds conveniences)."""
    from common.atomic import read_model_or_none
    from common.schemas.tui_memory import TuiMemory

    try:
        return read_model_or_none(memory_path(), TuiMemory) or TuiMemory()
    except StateFileError as e:
        log.warning("ignoring %s", e)
        return TuiMemory()


def remember_repository(repository: Path) -> None:
    """The wizard started an agent on ``repository``: open there next time."""
    from common.atomic import write_model

    memory = load_memory().model_copy(update={"last_repository": repository})
    memory_path().parent.mkdir(parents=True, exist_ok=True)
    write_model(memory_path(), memory)

"""Where ``harness web`` serves the TUI, for the agents' webhook messages to link to.

``harness web`` records its link in ``HARNESS_HOME/web.json`` while it serves and
removes it when it stops; an agent names that file at its start (``HARNESS_HOME``
then leaves its environment) and reads it at each message. The link never carries
the token: a chat channel is not a place for the key to the checkpoints, and a
browser that opened the tokened URL once carries the token in its cookie.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pydantic import ValidationError

from common.atomic import read_model_or_none, write_model
from common.errors import HarnessError
from common.paths import harness_home
from common.schemas.base import StrictModel

FILE_NAME = "web.json"


class ServedLink(StrictModel):
    """The page ``harness web`` serves (without its token) and who serves it."""

    link: str
    pid: int


def link_file(home: Path | None = None) -> Path:
    """``HARNESS_HOME/web.json``."""
    return (home or harness_home()) / FILE_NAME


def record(link: str, home: Path | None = None) -> Path:
    """Record ``link`` as served by this process; returns the file to :func:`forget`."""
    path = link_file(home)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_model(path, ServedLink(link=link, pid=os.getpid()))
    return path


def forget(path: Path) -> None:
    """This process no longer serves: its link goes (another server's stays)."""
    with contextlib.suppress(HarnessError, OSError, ValidationError):
        found = read_model_or_none(path, ServedLink)
        if found is not None and found.pid == os.getpid():
            path.unlink(missing_ok=True)


def served(path: Path | None) -> str | None:
    """The link recorded in ``path`` while its server runs; ``None`` otherwise."""
    if path is None:
        return None
    try:
        found = read_model_or_none(path, ServedLink)
    except (HarnessError, OSError, ValidationError):
        return None
    if found is None or not _alive(found.pid):
        return None
    return found.link


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

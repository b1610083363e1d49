"""The agent list as this TUI last saw it, for the first paint of the next one.

The daemon's answer comes after the first paint (its client and the protocol's schemas
load first, then it has to answer): about a second on a loaded machine, with an empty
list on screen meanwhile. So the TUI keeps the rows it last showed in
``$HARNESS_HOME/tui_agents.json`` and the next TUI paints them at once, marked as the
last known state, until the daemon's own list replaces them.

Reading happens before the first paint, so it builds no schema: plain JSON of the rows'
text, checked by hand, and anything unexpected (another version, other columns, a
broken or oversized file) is read as no cache at all. Writing happens once the daemon
has answered (atomically, as every state file).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common.paths import harness_home
from common.untrusted_text import is_unsafe

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
FILE_NAME = "tui_agents.json"
#: More than any agent list a person keeps; a larger file is not ours to trust.
MAX_ROWS = 500
MAX_BYTES = 512 * 1024


@dataclass(frozen=True)
class LastKnownRow:
    """One agent's row as it was shown: its name and the text of each column."""

    name: str
    cells: tuple[str, ...]


def cache_path(home: Path | None = None) -> Path:
    """Where the agent list is kept (beside the daemon's own files)."""
    return (home or harness_home()) / FILE_NAME


def read_last_known(columns: tuple[str, ...], path: Path | None = None) -> list[LastKnownRow]:
    """The rows last shown, if they were shown with exactly ``columns`` (else none)."""
    where = path or cache_path()
    try:
        with where.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as e:
        log.warning("the last known agent list is unreadable (%s): starting without it", e)
        return []
    if len(data) > MAX_BYTES:
        log.warning("the last known agent list %s is too large: starting without it", where)
        return []
    try:
        return _rows(json.loads(data), columns)
    except (ValueError, TypeError, KeyError, AttributeError) as e:
        log.warning("the last known agent list %s is not ours (%s): starting without it", where, e)
        return []


def _rows(document: Any, columns: tuple[str, ...]) -> list[LastKnownRow]:
    """The rows of a parsed cache file; raises ``ValueError`` on anything unexpected."""
    if document.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"schema_version {document.get('schema_version')!r}")
    if tuple(document["columns"]) != columns:
        raise ValueError("other columns")
    rows = document["rows"]
    if not isinstance(rows, list) or len(rows) > MAX_ROWS:
        raise ValueError("rows")
    found: list[LastKnownRow] = []
    for row in rows:
        cells = row["cells"]
        if not isinstance(row["name"], str) or len(cells) != len(columns):
            raise ValueError("a row")
        if not all(isinstance(cell, str) and as_written(cell) for cell in [row["name"], *cells]):
            raise ValueError("a cell a TUI would have escaped")
        found.append(LastKnownRow(row["name"], tuple(cells)))
    return found


def as_written(text: str) -> bool:
    """Whether ``text`` holds nothing a TUI shows escaped (it wrote every cell escaped).

    Checked character by character rather than escaped again: escaping text that is not
    ASCII builds a table of every code point the first time (some 300 ms), and this runs
    before the first paint. A character :func:`printable_line` would escape means the
    file is not what a TUI wrote: it is not shown at all.
    """
    if text.isascii():
        return text.isprintable()
    return not any(char in "\n\t" or is_unsafe(char) for char in text)


def write_last_known(
    rows: list[LastKnownRow], columns: tuple[str, ...], path: Path | None = None
) -> None:
    """Keep ``rows`` for the next TUI (a failure is logged: the cache is only a head start)."""
    from common.atomic import write_bytes_atomic  # after the first paint: pydantic is loaded

    document = {
        "schema_version": SCHEMA_VERSION,
        "columns": list(columns),
        "rows": [{"name": row.name, "cells": list(row.cells)} for row in rows[:MAX_ROWS]],
    }
    try:
        write_bytes_atomic(path or cache_path(), json.dumps(document).encode())
    except OSError as e:
        log.warning("could not keep the agent list for the next TUI: %s", e)

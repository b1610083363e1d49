"""The lines of a checkpoint's diff a person must read whole: the harness's count.

A line padded with hundreds of blanks hides what follows them past the edge of any
view (``__version__ = "0.2.0"``, 300 spaces, then a call); a very long line hides its
end the same way. The harness counts such lines where it builds the checkpoint's diff
(:mod:`common.workspace.long_lines`) and the checkpoint carries the count, so the TUI,
``harness checkpoint`` and ``harness web`` all say the same thing about them.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel


class LongLine(StrictModel):
    """One added or removed line that is very long or holds a long run of blanks."""

    path: str
    """The file's name as the diff names it, escaped to one line."""
    line: int | None = None
    """Its line number: in the new file (added), in the old file (removed); ``None`` when
    the diff has no hunk header for it."""
    removed: bool = False
    """A removed line (the count covers both sides: a removal can hide text too)."""
    length: int = Field(ge=0)
    """Its characters, the diff's ``+``/``-`` excluded."""
    blank_run: int = Field(default=0, ge=0)
    """Its longest run of blanks that the harness marks (0: none long enough)."""
    run_of: Literal["spaces", "tabs", "blanks"] = "spaces"
    """What that run is made of (``blanks``: mixed, or blanks other than space and tab)."""


class LongLines(StrictModel):
    """The flagged lines of one diff (the first ones, when there are many) and their count."""

    lines: list[LongLine] = Field(default_factory=list)
    """The first flagged lines, in diff order (at most a screenful)."""
    total: int = Field(default=0, ge=0)
    """How many lines are flagged in the whole diff, also past a cut of the stored text."""

"""Which lines of a diff a person must be told to read whole, and in what words.

The attack this answers: a model adds ``__version__ = "0.2.0"``, 300 spaces, then
``; __import__("os").system(...)``. Every view cuts or wraps at its width; a reviewer
who sees the version line and nothing after it approves the call. So the harness
counts, where the checkpoint's diff is built (:func:`find`, over the whole diff, also
past the cut of the stored text), every added or removed line that is

- very long: over :data:`LONG_LINE` characters, wider than any view shows at once, or
- padded: a run of :data:`BLANK_RUN` blanks or more after its first visible character
  (alignment seldom needs 20), or an indentation of :data:`INDENT_RUN` or more (no code
  is nested that deep; it pushes the code off an 80-column view).

The same runs are what the TUI shows as a visible ``·×300`` (:func:`marked_runs`): what
the checkpoint flags is what the person sees marked. Blanks are every character that
shows as blank space: space, tab, the Unicode spaces (NBSP, U+3000, ...), U+2800.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from common.schemas.long_lines import LongLine, LongLines
from common.untrusted_text import printable_name

#: A line longer than this (characters, the diff's ``+``/``-`` excluded) is flagged.
LONG_LINE = 200
#: A run of this many blanks after a line's first visible character is flagged and marked.
BLANK_RUN = 20
#: An indentation of this many blanks is flagged and marked.
INDENT_RUN = 60
#: How many flagged lines a checkpoint lists (the rest are counted).
LISTED = 20

_HUNK = re.compile(r"^(@@+) (?P<ranges>.*?) @@+")
_RANGE = re.compile(r"([-+])(\d+)(?:,(\d+))?")


#: A run of blanks as long as the shortest one marked (``\s``: every Unicode space).
_RUN = re.compile(rf"[\s\u2800]{{{BLANK_RUN},}}")


def marked_runs(content: str) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each run of blanks in one line's ``content`` long enough
    to hide what follows it: see the module's rules."""
    return [
        match.span()
        for match in _RUN.finditer(content)
        if match.start() > 0 or match.end() >= INDENT_RUN
    ]


def run_of(run: str) -> Literal["spaces", "tabs", "blanks"]:
    """``spaces``, ``tabs`` or ``blanks`` (mixed, or other blank characters)."""
    if run.strip(" ") == "":
        return "spaces"
    if run.strip("\t") == "":
        return "tabs"
    return "blanks"


@dataclass
class _Place:
    """Where the walk through a diff is: the file, the hunk, the next line numbers."""

    path: str = "(text before the first file)"
    parents: int = 0
    """How many ``+``/``-`` columns a content line has (0: not inside a hunk)."""
    old: int | None = None
    new: int | None = None
    old_left: int = 0
    new_left: int = 0


def find(diff: str, listed: int = LISTED) -> LongLines:
    """The flagged lines of ``diff`` (unified or combined, as git or difflib writes it)."""
    found = list(_flagged(diff))
    return LongLines(lines=found[:listed], total=len(found))


def _flagged(diff: str) -> Iterator[LongLine]:
    place = _Place()
    for line in diff.splitlines():
        if place.parents and not _ends_hunk(line):
            flagged = _content_line(place, line)
            if flagged is not None:
                yield flagged
            continue
        _header_line(place, line)


def _ends_hunk(line: str) -> bool:
    return line.startswith(("diff ", "@@"))


def _header_line(place: _Place, line: str) -> None:
    """A line outside a hunk: a file's header, or a hunk's start."""
    hunk = _HUNK.match(line)
    if hunk is not None:
        _start_hunk(place, len(hunk.group(1)) - 1, hunk.group("ranges"))
    elif line.startswith("diff --git ") and " b/" in line:
        place.path = line.rsplit(" b/", 1)[1]
    elif line.startswith(("diff --cc ", "diff --combined ")):
        place.path = line.split(" ", 2)[2]
    elif line.startswith("+++ ") and line[4:] != "/dev/null":
        place.path = line[4:].removeprefix("b/")
    elif line.startswith("--- ") and line[4:] != "/dev/null":
        place.path = line[4:].removeprefix("a/")


def _start_hunk(place: _Place, parents: int, ranges: str) -> None:
    place.parents = max(parents, 1)
    numbers = _RANGE.findall(ranges)
    olds = [(int(start), int(count or 1)) for sign, start, count in numbers if sign == "-"]
    news = [(int(start), int(count or 1)) for sign, start, count in numbers if sign == "+"]
    place.old, place.old_left = olds[0] if olds else (None, 0)
    place.new, place.new_left = news[-1] if news else (None, 0)


def _content_line(place: _Place, line: str) -> LongLine | None:
    """One line inside a hunk: counted, and flagged when it must be read whole."""
    if line.startswith("\\"):  # "\ No newline at end of file"
        return None
    prefix, content = line[: place.parents], line[place.parents :]
    removed = "-" in prefix
    added = "+" in prefix
    if place.parents == 1:  # a plain diff: the hunk ends when both sides are counted out
        number = place.old if removed else place.new
        _count_plain(place, removed=removed, added=added)
    else:  # combined: only the merge result's numbers mean one thing
        number = None if removed else place.new
        if not removed and place.new is not None:
            place.new += 1
    if not (added or removed):
        return None
    runs = marked_runs(content)
    if len(content) <= LONG_LINE and not runs:
        return None
    longest = max(runs, key=lambda run: run[1] - run[0], default=(0, 0))
    return LongLine(
        path=printable_name(place.path),
        line=number,
        removed=removed,
        length=len(content),
        blank_run=longest[1] - longest[0],
        run_of=run_of(content[longest[0] : longest[1]]) if runs else "spaces",
    )


def _count_plain(place: _Place, *, removed: bool, added: bool) -> None:
    if not added and place.old is not None:
        place.old += 1
        place.old_left -= 1
    if not removed and place.new is not None:
        place.new += 1
        place.new_left -= 1
    if place.old_left <= 0 and place.new_left <= 0:
        place.parents = 0  # the next line is a header again (difflib's files follow on)


def flag_text(item: LongLine) -> str:
    """``core.py line 12: 372 characters, 300 of them spaces in a row``."""
    where = f"{item.path} line {item.line}" if item.line is not None else item.path
    if item.removed:
        where += " (removed)"
    said = f"{where}: {item.length} characters"
    if item.blank_run:
        said += f", {item.blank_run} of them {item.run_of} in a row"
    return said


def summary(flags: LongLines) -> str:
    """``1 line of the diff to read whole``: how many, in one line."""
    noun = "line" if flags.total == 1 else "lines"
    return f"{flags.total} {noun} of the diff to read whole"


def flag_lines(flags: LongLines) -> list[str]:
    """The flags as the harness's lines: a heading saying why, then one line each."""
    if not flags.total:
        return []
    out = [f"⚠ {summary(flags)} (over {LONG_LINE} characters or {BLANK_RUN}+ blanks in a row):"]
    out += [f"  {flag_text(item)}" for item in flags.lines]
    if flags.total > len(flags.lines):
        out.append(f"  … and {flags.total - len(flags.lines)} more")
    return out

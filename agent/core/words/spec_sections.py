"""The spec's sections, as the harness (never the model) names them.

Why: whether every part of the spec was done must be the harness's judgement. The
spec is split here into sections with stable names; the model maps each proposed
issue to section names, the harness refuses names it does not know, and before the
merge request it says which sections no closed issue covers.

Pure logic, no IO. The rules, kept small on purpose:

- a heading is an ATX heading (``#`` to ``######`` then a space, at most three spaces
  of indentation) outside a fenced code block (``````` or ``~~~``);
- a section is a heading whose own body (up to the next heading, of any level) has
  non-blank text; a title heading directly followed by a sub-heading is not one;
- text before the first heading is a section too (:data:`PREAMBLE`), and a spec without
  any heading is one section (:data:`WHOLE_SPEC`);
- a section's id is its heading text, normalised (closing ``#``s, backticks and runs of
  spaces dropped); a repeated id gets `` (2)``, `` (3)``… in document order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

WHOLE_SPEC = "Whole spec"
"""The one section of a spec that has no heading."""
PREAMBLE = "Preamble"
"""The text before the first heading, when there is any."""
UNTITLED = "Untitled section"
"""A heading with no text (``#`` alone)."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class SpecSection:
    """One section: its id, its level (0 for the preamble or the whole spec) and its
    lines (1-based, inclusive; ``first`` is the heading's line)."""

    id: str
    level: int
    first: int
    last: int


def normalise(name: str) -> str:
    """A heading's text (or a name the model gave) as an id: no backticks, no closing
    ``#``s, single spaces."""
    text = _CLOSING.sub("", name.strip())
    return " ".join(text.replace("`", "").split())


def parse(text: str) -> list[SpecSection]:
    """The spec's sections in document order (see the module's rules)."""
    lines = text.splitlines()
    headings: list[tuple[int, int, str]] = []  # (0-based line, level, id)
    fence: str | None = None
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and _closes(fence, opened):
                fence = None
            continue
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            fence = opened.group(1)
            continue
        found = _HEADING.match(line)
        if found:
            headings.append((number, len(found.group(1)), normalise(found.group(2) or "")))
    if not headings:
        return [SpecSection(WHOLE_SPEC, 0, 1, len(lines))] if _has_text(lines) else []
    found_sections: list[tuple[str, int, int, int]] = []
    if _has_text(lines[: headings[0][0]]):
        found_sections.append((PREAMBLE, 0, 1, headings[0][0]))
    for index, (number, level, name) in enumerate(headings):
        end = headings[index + 1][0] if index + 1 < len(headings) else len(lines)
        if _has_text(lines[number + 1 : end]):
            found_sections.append((name or UNTITLED, level, number + 1, end))
    return _disambiguated(found_sections)


def _closes(fence: str, found: re.Match[str]) -> bool:
    """Whether a fence line closes ``fence``: the same character, at least as many, and
    nothing after it."""
    marker = found.group(1)
    return marker[0] == fence[0] and len(marker) >= len(fence) and not found.group(2).strip()


def _has_text(lines: list[str]) -> bool:
    return any(line.strip() for line in lines)


def _disambiguated(found: list[tuple[str, int, int, int]]) -> list[SpecSection]:
    """Repeated ids get `` (2)``, `` (3)``… (never one that is already taken)."""
    taken = {name.casefold() for name, *_ in found}
    seen: set[str] = set()
    next_number: dict[str, int] = {}
    sections: list[SpecSection] = []
    for name, level, first, last in found:
        unique = name
        key = name.casefold()
        if key in seen:
            count = next_number.get(key, 2)
            while (candidate := f"{name} ({count})".casefold()) in taken or candidate in seen:
                count += 1
            next_number[key] = count + 1
            unique = f"{name} ({count})"
        seen.add(unique.casefold())
        sections.append(SpecSection(unique, level, first, last))
    return sections


def resolve(names: Iterable[str], sections: Iterable[str]) -> tuple[list[str], list[str]]:
    """The known section ids ``names`` refer to (normalised, case-insensitively, each once,
    in the order given) and the names that match none."""
    known = {normalise(section).casefold(): section for section in sections}
    ids: list[str] = []
    unknown: list[str] = []
    for name in names:
        section = known.get(normalise(name).casefold())
        if section is None:
            unknown.append(name)
        elif section not in ids:
            ids.append(section)
    return ids, unknown


def uncovered(sections: Iterable[str], covering: Iterable[Iterable[str]]) -> list[str]:
    """The sections (in their order) that none of ``covering``'s section lists names."""
    covered = {section for names in covering for section in names}
    return [section for section in sections if section not in covered]


def coverage_line(sections: list[str], missing: list[str], by: str) -> str:
    """One line for a checkpoint: every section covered by a ``by`` issue, or which are not
    (section names are the spec's: the renderer escapes them)."""
    if not sections:
        return "the spec has no text to map to issues"
    if not missing:
        return f"every spec section ({len(sections)}) is covered by a {by} issue"
    return f"{len(missing)} of {len(sections)} spec section(s) no {by} issue covers: " + ", ".join(
        missing
    )

"""Untrusted text made safe to show a person: nothing in it can act on a terminal or hide.

The model writes report text, file names, commit summaries and test output; a program
it wrote prints whatever it likes. Shown raw, that text drives the person's terminal
(an ``ESC`` starts sequences that set the title, clear the screen, colour a forged
``[harness]`` line), reorders what is read (bidi controls such as U+202E) or hides
characters (zero-width ones). :func:`printable` shows every such character visibly
escaped instead:

- C0 controls, DEL and C1 controls as ``\\xNN`` (``\\r``, ``\\n`` by name). Escaping
  the ``ESC`` (and the C1 ``CSI``/``OSC``/``DCS`` introducers) alone disarms every
  ANSI, CSI, OSC and DCS sequence: what follows it is plain printable text.
- ``\\n`` is kept (multi-line text keeps its shape) unless the caller wants one line;
  ``\\t`` is kept.
- Format characters (category Cf: bidi controls, zero-width spaces and joiners, the
  byte order mark, tag characters), surrogates (Cs), private-use characters (Co), line
  and paragraph separators (Zl, Zp) and a few invisible letters (Hangul fillers, the
  combining grapheme joiner) as ``<U+XXXX>``.
- In a name (:func:`printable_name`) also every other blank: NBSP, U+3000, U+2800, the
  spaces of U+2000-U+200A and the variation selectors (:data:`NAME_BLANKS`).
- A lone surrogate that ``surrogateescape`` made of a byte that was not UTF-8 as that
  byte, ``\\xNN``; any other lone surrogate as ``<U+XXXX>``. The result always encodes
  as UTF-8.

Backslashes are not doubled, so escaping is idempotent (text escaped twice, by the
writer and again by the reader, reads the same) and a literal ``\\x1b`` the model typed
looks like an escaped one: harmless, since neither acts.

Pure and fast (it runs on every log line): ASCII text that is all printable returns
at once; otherwise a regular expression looks for an unsafe character and ``str.translate``
replaces them all. Both are built once per process, for text beyond ASCII on first use.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache

#: Unicode categories whose characters are shown escaped.
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
#: Invisible characters of other categories (they render as nothing, or as blank space).
INVISIBLE = frozenset({0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0})
#: Blank-looking characters :func:`printable` keeps (they are not controls, format
#: characters or line separators) that :func:`printable_name` escapes: every space
#: separator but U+0020 (NBSP, the Ogham space mark, U+2000-U+200A, U+202F, U+205F,
#: U+3000), the braille blank U+2800, and the variation selectors, which show as nothing.
NAME_BLANKS = frozenset(
    {0x00A0, 0x1680, *range(0x2000, 0x200B), 0x202F, 0x205F, 0x3000, 0x2800}
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)
#: The surrogates ``surrogateescape`` makes of the bytes 0x80-0xFF that were not UTF-8.
_ESCAPED_BYTES = range(0xDC80, 0xDD00)
#: Planes 15 and 16 are private use only: matched by range, not kept in the table.
_PRIVATE_USE_PLANES = 0xF0000
_HIGH_PRIVATE_USE = re.compile("[\U000f0000-\U0010ffff]+")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: str, *, one_line: bool = False) -> str:
    """``text`` with every controlling, reordering or invisible character shown escaped.

    ``one_line``: escape ``\\n`` too, for a value shown inside one line (a title, a
    file name, a reason), so it cannot start a line of its own.
    """
    if text.isascii():
        if text.isprintable():  # C speed; false for any \n, \t or control character
            return text
        tables = _ascii_tables()
    else:  # isprintable would pass invisible letters (INVISIBLE)
        tables = _unicode_tables()
    if tables.unsafe.search(text) is None and not (one_line and "\n" in text):
        return text  # only \n and \t, or harmless spaces
    shown = text.translate(tables.one_line if one_line else tables.multi_line)
    if not text.isascii():
        shown = _HIGH_PRIVATE_USE.sub(_escaped_run, shown)
    return shown


def printable_line(text: str) -> str:
    """``text`` escaped to show inside one line: ``\\n`` is escaped as well."""
    return printable(text, one_line=True)


def printable_name(text: str) -> str:
    """A name (a file's, a branch's) escaped to show inside one line, and every blank that
    is not the plain space shown as ``<U+XXXX>`` too (:data:`NAME_BLANKS`), and a tab as
    ``\\t``.

    Why names and not all text: in a name, an NBSP, an ideographic space (U+3000), a
    braille blank (U+2800) or a variation selector makes a new file look like an existing
    one (``notes.md`` and ``notes<U+2800>.md``, ``my file.py`` and ``my<U+00A0>file.py``),
    and a tab passes for a separator in a list of names. In prose they are ordinary
    (French spacing, Japanese text), and escaping them there would only hinder reading.
    """
    return printable_line(text).translate(_name_table())


def error_line(error: BaseException) -> str:
    """``error: MESSAGE`` as a front end prints a failure: one line, escaped.

    Why escaped here and not trusted: a message may quote what the model wrote (a
    checkpoint id or a decider read back from a workspace file, a path), and a newline
    in it would print a second line that looks like the harness's own.
    """
    return f"error: {printable_line(str(error))}"


def printable_bytes(data: bytes, *, one_line: bool = False) -> str:
    """``data`` decoded as UTF-8 (a byte that is not UTF-8 shown as ``\\xNN``), escaped."""
    return printable(data.decode("utf-8", errors="surrogateescape"), one_line=one_line)


def escape_char(char: str) -> str:
    """How one unsafe character is shown."""
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:  # C0, DEL, C1
        return f"\\x{code:02x}"
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    return f"<U+{code:04X}>"


def is_unsafe(char: str) -> bool:
    """Whether ``char`` is shown escaped (``\\n`` and ``\\t`` are not: callers decide)."""
    if char in "\n\t":
        return False
    code = ord(char)
    return (
        unicodedata.category(char) in UNSAFE_CATEGORIES
        or code in INVISIBLE
        or code >= _PRIVATE_USE_PLANES  # their last two code points are noncharacters
    )


@cache
def _name_table() -> dict[int, str]:
    """What :func:`printable_name` replaces after :func:`printable_line`."""
    return {code: escape_char(chr(code)) for code in NAME_BLANKS} | {0x09: "\\t"}


@dataclass(frozen=True)
class _Tables:
    """What finds unsafe characters fast, and what replaces them (``str.translate``)."""

    unsafe: re.Pattern[str]
    multi_line: dict[int, str]
    one_line: dict[int, str]


def _escaped_run(match: re.Match[str]) -> str:
    return "".join([escape_char(char) for char in match.group()])


@cache
def _ascii_tables() -> _Tables:
    return _tables(range(0x80))


@cache
def _unicode_tables() -> _Tables:
    """Every unsafe code point below plane 15 (built once per process: ~0.2 s of scanning)."""
    return _tables(range(_PRIVATE_USE_PLANES), high_private_use=True)


def _tables(codes: range, *, high_private_use: bool = False) -> _Tables:
    table: dict[int, str] = {}
    ranges: list[tuple[int, int]] = []
    for code in codes:
        char = chr(code)
        if not is_unsafe(char):
            continue
        table[code] = escape_char(char)
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    if high_private_use:
        ranges.append((_PRIVATE_USE_PLANES, 0x10FFFF))
    members = "".join(
        _class_char(low) if low == high else f"{_class_char(low)}-{_class_char(high)}"
        for low, high in ranges
    )
    return _Tables(re.compile(f"[{members}]"), table, {**table, 0x0A: "\\n"})


def _class_char(code: int) -> str:
    """A code point written for a character class (escaped: no character means itself)."""
    return f"\\U{code:08x}"


#: What starts every line of the model's own words wherever a person reads them (the
#: agent log, a checkpoint): a model line can never look like one of the harness's.
MODEL_MARK = "[model]"


def marked_lines(text: str, mark: str = MODEL_MARK) -> list[str]:
    """``text`` escaped, one entry per line, each line starting with ``mark``.

    Every line carries the mark, not only the first: a second line of the model's text
    would otherwise start where the harness's own lines start.
    """
    return [f"{mark} {line}".rstrip() for line in printable(text).splitlines() or [""]]

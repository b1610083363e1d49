"""Untrusted text shown to a person: controlling, reordering or invisible characters escaped."""

from __future__ import annotations

import time
import unicodedata

import pytest

from common.untrusted_text import is_unsafe, printable, printable_bytes, printable_line

HOSTILE_REPORT = (
    "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] Security review: APPROVED - press Y\x1b[0m\u202e"
)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),  # CSI: clear the screen
        ("\x1b[32mgreen\x1b[0m", "\\x1b[32mgreen\\x1b[0m"),  # SGR colour
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # OSC: window title, BEL-terminated
        (
            "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
            "\\x1b]8;;http://x\\x1b\\link\\x1b]8;;\\x1b\\",
        ),
        ("\x1bP+q544e\x1b\\", "\\x1bP+q544e\\x1b\\"),  # DCS
        ("\x1b]9;notify\x07", "\\x1b]9;notify\\x07"),  # OSC 9 notification
        ("\x1bc", "\\x1bc"),  # full reset
        ("\x9b2J", "\\x9b2J"),  # C1 CSI
        ("\x9d0;t\x9c", "\\x9d0;t\\x9c"),  # C1 OSC and ST
        ("\x90q\x9c", "\\x90q\\x9c"),  # C1 DCS
        ("\x85", "\\x85"),  # C1 next line
        ("a\rb", "a\\rb"),  # carriage return overwrites the line
        ("\x08\x08ok", "\\x08\\x08ok"),  # backspaces
        ("\x00", "\\x00"),
        ("\x07", "\\x07"),
        ("\x0b\x0c", "\\x0b\\x0c"),
        ("\x7f", "\\x7f"),  # DEL
        ("\u202e", "<U+202E>"),  # right-to-left override
        ("\u202a\u202b\u202c\u202d", "<U+202A><U+202B><U+202C><U+202D>"),
        ("\u2066\u2067\u2068\u2069", "<U+2066><U+2067><U+2068><U+2069>"),  # isolates
        ("\u200e\u200f", "<U+200E><U+200F>"),  # marks
        ("\u061c", "<U+061C>"),  # Arabic letter mark
        ("a\u200bb", "a<U+200B>b"),  # zero-width space
        ("\u200c\u200d", "<U+200C><U+200D>"),  # zero-width (non-)joiner
        ("\u2060", "<U+2060>"),  # word joiner
        ("\ufeff", "<U+FEFF>"),  # byte order mark
        ("\u180e", "<U+180E>"),  # Mongolian vowel separator
        ("\u00ad", "<U+00AD>"),  # soft hyphen
        ("\U000e0041", "<U+E0041>"),  # tag character (invisible text)
        ("\u2028\u2029", "<U+2028><U+2029>"),  # line and paragraph separators
        ("\ue000", "<U+E000>"),  # private use, BMP
        ("\U000ffffd", "<U+FFFFD>"),  # private use, plane 15
        ("\U0010fffd", "<U+10FFFD>"),  # private use, plane 16
        ("\u3164", "<U+3164>"),  # Hangul filler: an invisible letter
        ("\u034f", "<U+034F>"),  # combining grapheme joiner
        ("\ud800", "<U+D800>"),  # a lone surrogate
        ("\udcff", "\\xff"),  # a byte surrogateescape kept: shown as that byte
    ],
)
def test_unsafe_characters_are_shown_escaped(raw: str, shown: str) -> None:
    assert printable(raw) == shown
    assert printable(f"x{raw}y") == f"x{shown}y"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain ASCII text",
        "two\nlines\n",
        "a\ttab",
        "é, ü, ß, 日本語, Ελληνικά, עברית, العربية",  # right-to-left letters are not controls
        "emoji 😀 and flags 🇫🇷",
        "a non\u00a0breaking and\u3000ideographic space",
        "backslash \\x1b typed by hand",
        "<U+202E> typed by hand",
    ],
)
def test_safe_text_is_unchanged(text: str) -> None:
    assert printable(text) == text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("title\n[harness] APPROVED", "title\\n[harness] APPROVED"),
        ("a\r\nb", "a\\r\\nb"),
        ("tab\tkept", "tab\tkept"),
        ("\u2028x", "<U+2028>x"),
        ("naïve\nfile", "naïve\\nfile"),
    ],
)
def test_one_line_escapes_newlines_too(raw: str, shown: str) -> None:
    assert printable_line(raw) == shown
    assert "\n" not in printable_line(raw)


@pytest.mark.parametrize(
    ("data", "shown"),
    [
        (b"ok\n", "ok\n"),
        (b"caf\xc3\xa9", "café"),
        (b"bad \xff\xfe byte", "bad \\xff\\xfe byte"),
        (b"cut \xe2\x80", "cut \\xe2\\x80"),  # a U+202E cut in half is two bytes, not a char
        (b"\xe2\x80\xae", "<U+202E>"),
        (b"\x1b[2J", "\\x1b[2J"),
    ],
)
def test_bytes_are_decoded_leniently_and_escaped(data: bytes, shown: str) -> None:
    assert printable_bytes(data) == shown


def test_the_hostile_report_is_inert_and_keeps_its_words() -> None:
    shown = printable(HOSTILE_REPORT)
    assert shown == (
        "\\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] Security review: APPROVED - press Y"
        "\\x1b[0m<U+202E>"
    )
    assert shown.isprintable()


def test_every_code_point_either_stays_or_is_escaped_into_printable_ascii() -> None:
    """All 1.1 million code points: the output holds no unsafe character and encodes as UTF-8."""
    every = "".join(chr(code) for code in range(0x110000))
    for one_line in (False, True):
        shown = printable(every, one_line=one_line)
        shown.encode("utf-8")  # no surrogate survives
        assert not any(is_unsafe(char) for char in shown)
        assert ("\n" in shown) is not one_line
        assert "\t" in shown
    for code in range(0x110000):
        char = chr(code)
        if is_unsafe(char):
            assert printable(char).isascii() and printable(char).isprintable(), hex(code)
        elif char not in "\n\t":
            assert printable(char) == char, hex(code)


@pytest.mark.parametrize("category", ["Cc", "Cf", "Cs", "Co", "Zl", "Zp"])
def test_every_character_of_the_unsafe_categories_is_escaped(category: str) -> None:
    members = [
        chr(code)
        for code in range(0x110000)
        if unicodedata.category(chr(code)) == category and chr(code) not in "\n\t"
    ]
    assert members
    shown = printable("".join(members))
    assert shown.isascii() and shown.isprintable()


@pytest.mark.parametrize("text", [HOSTILE_REPORT, "a\x00b\ud800\udcff\u202e\nc", "x" * 10])
def test_escaping_twice_changes_nothing_more(text: str) -> None:
    """The log writer and the reader both escape: the second pass leaves the text alone."""
    once = printable(text)
    assert printable(once) == once
    assert printable_line(printable_line(text)) == printable_line(text)


@pytest.mark.parametrize(
    "text",
    [
        ("x" * 99 + "\n") * 10_000,  # 1 MB of ordinary log
        ("é😀 日本語 text " * 6 + "\n") * 8_000,  # 1 MB beyond ASCII
        ("ab\x1b[2J" * 100 + "\n") * 1_700,  # 1 MB, every sixth character an escape
        ("a\u202eb\u200b" * 20 + "\n") * 6_000,  # 1 MB, every other character a format one
    ],
    ids=["ascii", "unicode", "ascii-hostile", "unicode-hostile"],
)
def test_a_megabyte_is_escaped_in_well_under_a_second(text: str) -> None:
    """It runs on every log line; measured ~2-7 ms per MB of ordinary text, ~40-70 ms hostile."""
    printable("\u202e")  # the tables are built once per process, not measured here
    started = time.perf_counter()
    printable(text)
    assert time.perf_counter() - started < 0.5

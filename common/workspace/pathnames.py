"""Which file names the harness commits, and how it shows the ones it will not.

Why: file names are written by the model. git hands them over as bytes; read as text
they change (universal newlines turn ``\\r`` into ``\\n``) or do not decode at all, and
a name that cannot be committed exactly as it is wedged the run (a failing commit,
then a failing resume, forever). A name shown raw also drives the person's terminal.

So a path crosses the harness as bytes, and only names that are plain printable UTF-8
are committed. Every other one is *kept out* of the commit and shown escaped
(``\\r``, ``\\x1b``, ``<U+202E>``): never a crash, never raw.

A name with a blank that is not the plain space (NBSP, U+3000, U+2800, U+2000-U+200A, a
variation selector) is committed: git keeps it exactly, and real projects hold such
names (macOS names its screenshots with U+202F before "AM"). It is shown escaped
wherever it is shown (:func:`shown`), so the person can tell it from a look-alike.

Pure: no file system and no git here.
"""

from __future__ import annotations

from common.untrusted_text import printable_bytes, printable_name


def refusal(raw: bytes) -> str | None:
    """Why the harness does not commit a path of this name, or ``None`` when it does.

    Refused: a name that is not UTF-8, or that holds a control character (any C0
    including ``\\t``, DEL, C1), a bidi, zero-width or other invisible character.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "its name is not UTF-8"
    if "\t" in text or printable_bytes(raw, one_line=True) != text:
        return "its name has a control, bidi or invisible character"
    return None


def shown(raw: bytes) -> str:
    """The path as a person may see it: one line, every unsafe character escaped, and every
    blank but the plain space too (:func:`common.untrusted_text.printable_name`: NBSP,
    U+3000, U+2800, a tab...), so a new file never looks like an existing one."""
    return printable_name(raw.decode("utf-8", errors="surrogateescape"))


def key(raw: bytes) -> str:
    """The path as text the harness can store (JSON) and compare: itself when it is
    committable, else its escaped form (such a path is never committed either way)."""
    return raw.decode("utf-8") if refusal(raw) is None else shown(raw)


def encoded(path: str) -> bytes:
    """A stored path back as the bytes git knows (a name that was never UTF-8 cannot
    be among the committable ones, so strict UTF-8 is right for those)."""
    return path.encode("utf-8", errors="surrogateescape")

"""``.env`` read by ``harness`` exactly as ``start.sh`` reads it (``scripts/load-env.sh``).

Why: ``cp .env.example .env`` and a key in it worked for ``./start.sh`` but not for
``harness run``, which said "no Claude credentials" with the same file. The rules are
the shell loader's, line for line: each line is ``KEY=VALUE`` (optionally ``export
KEY=VALUE``, the value optionally in single or double quotes, taken literally; ``#``
starts a comment line or, after a blank, a trailing comment of an unquoted value); the
file is read, never run; a variable already set in the environment is never
overridden, an empty value sets nothing, and any other line is skipped with one warning
that names the line, never its content (it may hold a secret).

Which file: ``HARNESS_ENV_FILE`` if set (a relative path is taken from the checkout, as
``start.sh`` takes it), else the checkout's ``.env``; an install (no checkout) reads
only ``HARNESS_ENV_FILE``. Standard library only: the commands that read it start fast.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from pathlib import Path

VARIABLE = "HARNESS_ENV_FILE"
DEFAULT_NAME = ".env"

_BLANK = " \t\n\r\f\v"  # the shell's [[:space:]]
_EXPORT = re.compile(rf"export[{_BLANK}]+(.*)", re.DOTALL)
_PAIR = re.compile(rf"([A-Za-z_][A-Za-z0-9_]*)[{_BLANK}]*=[{_BLANK}]*(.*)", re.DOTALL)
_QUOTED = re.compile(r'"(.*)"|\'(.*)\'', re.DOTALL)
_COMMENT = re.compile(rf"(.*[^{_BLANK}])?[{_BLANK}]+#.*", re.DOTALL)


def parse(text: str, source: str) -> tuple[dict[str, str], list[str]]:
    """The ``KEY=VALUE`` pairs of ``text`` (empty values left out) and a warning per
    line that is none; ``source`` names the file in the warnings."""
    pairs: dict[str, str] = {}
    warnings: list[str] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.removesuffix("\r").lstrip(_BLANK)
        if not line or line.startswith("#"):
            continue
        exported = _EXPORT.fullmatch(line)
        if exported is not None:
            line = exported.group(1)
        pair = _PAIR.fullmatch(line)
        if pair is None:
            warnings.append(f"warning: {source} line {number} is not KEY=VALUE; skipped")
            continue
        value = _value(pair.group(2).rstrip(_BLANK))
        if value and pair.group(1) not in pairs:
            pairs[pair.group(1)] = value
    return pairs, warnings


def _value(text: str) -> str:
    """A value as written: the inside of its quotes, else without a trailing comment."""
    quoted = _QUOTED.fullmatch(text)
    if quoted is not None:
        return quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
    comment = _COMMENT.fullmatch(text)
    if comment is not None:
        text = comment.group(1) or ""
    return "" if text.startswith("#") else text


def env_file(environ: MutableMapping[str, str], checkout: Path | None) -> Path | None:
    """The file to read: ``HARNESS_ENV_FILE`` or the checkout's ``.env`` (``None``: none)."""
    named = environ.get(VARIABLE)
    if named:
        path = Path(named).expanduser()
        return path if path.is_absolute() or checkout is None else checkout / path
    return checkout / DEFAULT_NAME if checkout is not None else None


def load(path: Path, environ: MutableMapping[str, str]) -> list[str]:
    """Set in ``environ`` what ``path`` holds and ``environ`` lacks; the warnings to print.

    A missing file sets nothing, as in ``start.sh``; an unreadable one is a warning.
    """
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError as e:
        return [f"warning: {path} cannot be read ({e.strerror}); skipped"]
    pairs, warnings = parse(text, str(path))
    for key, value in pairs.items():
        environ.setdefault(key, value)
    return warnings

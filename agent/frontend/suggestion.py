"""The choice a person most likely meant: a mistyped command (``harness lsit``) or a
spec field (``tset_command``). Standard library only: every command pays for it."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def suggestion(typed: str, choices: Iterable[str]) -> str | None:
    """The choice ``typed`` most likely meant (``lsit`` → ``list``), ``None`` for none close."""
    close = difflib.get_close_matches(typed, list(choices), n=1, cutoff=0.6)
    return close[0] if close else None

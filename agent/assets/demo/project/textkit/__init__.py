"""textkit: small, dependency-free helpers for cleaning up text."""

from __future__ import annotations

import re

__all__ = ["normalize_whitespace"]

_WHITESPACE = re.compile(r"\s+")


def normalize_whitespace(text: str) -> str:
    """Collapse every run of whitespace into one space and trim both ends.

    >>> normalize_whitespace("  hello \\n\\t world  ")
    'hello world'
    """
    return _WHITESPACE.sub(" ", text).strip()

"""Module docstrings as ``--help`` text: reStructuredText markup is for Sphinx, not terminals.

The docstrings stay the single source of a command's description; :func:`plain`
takes out the markup a person would otherwise see in ``--help`` (double backticks,
roles such as ``:mod:`x```).
"""

from __future__ import annotations

import re

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def plain(docstring: str | None) -> str | None:
    """``docstring`` without reStructuredText roles and double backticks (``None`` stays)."""
    if docstring is None:
        return None
    return _LITERAL.sub(r"\1", _ROLE.sub(r"\1", docstring))

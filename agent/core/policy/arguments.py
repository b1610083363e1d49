"""Arguments shared by every program's rules: paths, option values and backgrounding."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.core.policy.context import Denied
from agent.core.policy.syntax import Word

if TYPE_CHECKING:
    from agent.core.policy.judge import Judge

Rule = Callable[["Judge", str, list[Word]], None]
"""A program's rules: raise :class:`Denied` to refuse ``program`` with ``args``."""


def looks_like_path(value: str) -> bool:
    """An option value that may name a place (``--out=/x``, ``--junitxml=.git/x``)."""
    return value.startswith(("/", "~", ".")) or "/" in value


def check_paths(
    judge: Judge,
    args: list[Word],
    *,
    write: bool = False,
    skip_positionals: int = 0,
    removing: bool = False,
) -> None:
    """Every positional argument is a path; option values that look like paths are too.

    ``write``: the program may write there (tools, scripts), so the harness's folders are
    off limits as well. ``removing``: it only deletes them (``rm``).
    """
    for word in args:
        text = word.text
        if text is None:
            judge.check_path(word, write=write, removing=removing)
            continue
        if text.startswith("-") and text != "-":
            value = text.partition("=")[2] if "=" in text else ""
            if value and looks_like_path(value):
                judge.check_path(Word(word.raw, value), write=write, removing=removing)
            continue
        if skip_positionals > 0:
            skip_positionals -= 1
            continue
        judge.check_path(word, write=write, removing=removing)


def one_liner(judge: Judge, what: str) -> None:
    """Deny a program the harness cannot read as a project file (``python -c``, a program
    read from standard input), unless the project allows one-liners."""
    if not judge.context.settings.allow_one_liners:
        raise Denied(
            f"{what} runs a program the harness cannot check; write it to a file in the "
            "project and run that file (or use the project's test command)"
        )


def background(judge: Judge, what: str) -> None:
    """Deny starting a process that outlives the command, unless the project allows it."""
    if not judge.context.settings.allow_background:
        raise Denied(
            f"{what} starts a process that keeps running in the background; run the "
            "command in the foreground (with a timeout if it may hang)"
        )

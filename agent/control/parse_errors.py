"""``harness``'s command-line mistakes as one line each, with a suggestion for a typo.

Why: argparse prints its usage block and then the error, two or more lines, and for a
mistyped command it lists every command instead of the one meant (``harness lsit``).
A person reads one line that says what was wrong and what was probably meant; the
usage is one ``--help`` away. Standard library only: every command pays for this module.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from typing import Any, NoReturn

from agent.frontend.suggestion import suggestion

#: argparse's exit status for a usage error, kept: scripts tell it from a failure (1).
USAGE_STATUS = 2


def invalid_choice(prog: str, typed: str, choices: Iterable[str], *, command: bool) -> str:
    """The line for a value that is none of ``choices``: a command, or an argument's value.

    Args:
        prog: the program, as argparse names it (``harness``, ``harness daemon``).
        typed: what the person typed.
        choices: what would have been accepted.
        command: ``typed`` stands where a command goes (``harness COMMAND``).
    """
    known = [str(choice) for choice in choices]
    what = "command" if command else "choice"
    line = f"unknown {what} {typed!r}"
    close = suggestion(typed, known)
    if close is not None:
        line += f": did you mean `{prog} {close}`?" if command else f": did you mean {close!r}?"
    if command:
        return f"{line} (`{prog} --help` lists the commands)"
    return f"{line} (one of {', '.join(known)})"


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose every usage error is one line on stderr, then exit 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``error: MESSAGE (see `PROG --help`)`` alone; argparse printed its usage too."""
        if message.startswith("unknown "):  # already ours (see _check_value)
            line = message
        else:
            line = f"{message} (see `{self.prog} --help`)"
        print(f"error: {line}", file=sys.stderr)
        sys.exit(USAGE_STATUS)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """A value outside the choices is refused with the choice it probably meant."""
        choices = action.choices
        if choices is None or value in choices:
            return
        command = isinstance(action, argparse._SubParsersAction)
        raise argparse.ArgumentError(
            None, invalid_choice(self.prog, str(value), choices, command=command)
        )

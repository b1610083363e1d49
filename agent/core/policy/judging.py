"""What a program's rules may ask of the judge that calls them.

The rule modules (:mod:`.files`, :mod:`.git`, :mod:`.interpreters`, …) are called by the
judge (:class:`.judge.ShellJudge`) and call back into it: a nested ``bash -c``, a path
to check, a folder change. They see it through this protocol, below them both, so no
rule module imports the judge that imports it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from agent.core.policy.context import PolicyContext
from agent.core.policy.syntax import Word


class Judge(Protocol):
    """The judge of one command text, as its rules see it."""

    context: PolicyContext
    root: Path
    """The project folder the command is judged against."""
    cwds: set[Path]
    """Every folder the shell may be in at this point of the command."""
    functions: set[str]
    """Functions the command defines."""
    input_text: str | None
    """The literal text the command being judged reads on its standard input, if known."""

    def run_nested(self, command: str, *, same_shell: bool = False) -> None:
        """Judge text that another shell (``bash -c``) or this one (``eval``) will run."""

    def check_path(
        self, word: Word, *, write: bool, what: str = "path", removing: bool = False
    ) -> None:
        """Deny unless ``word`` stays inside the project (and out of harness folders)."""

    def judge_words(self, words: list[Word]) -> None:
        """Judge one simple command given as words (also used by wrappers like ``env``)."""

    def change_folder(self, target: Word | None) -> None:
        """``cd TARGET`` (``None``: ``popd``): follow the shell into its new folders."""

"""Handing a checkpoint's diff to the person's own pager, while the TUI steps aside.

Which program: delta when it is installed (it reads a diff on its standard input and
colours it; told never to cut a wrapped line short), else ``$PAGER``, else ``less``,
else ``more``. What it gets is the diff as ``harness checkpoint --full`` prints it:
escaped (:mod:`common.untrusted_text`), so a pager that passes bytes through (``cat``,
``less -R``) never hands the model's escape sequences to the terminal. It is written to
a private temporary file (mode 0600) that is removed afterwards.

Not ``git difftool``: it would run git in the project outside the harness's guard
(:mod:`common.workspace.git_guard`), where the repository's drivers and helpers run,
and the guard itself would drop the person's tool settings.

No textual here: the screens suspend the app around :func:`run_pager`.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from common.untrusted_text import printable_line
from common.workspace.diff_text import ReviewDiff, review_lines

#: Said instead where there is no terminal of the person's to hand the diff to.
NO_TERMINAL = (
    "no terminal of yours to hand the diff to here (harness web): f shows it full "
    "screen, or run `harness checkpoint AGENT --full` in a shell"
)

#: delta's own limit on the rows of a wrapped line (2 by default: it would cut the rest).
DELTA_ARGS = ("--paging=always", "--wrap-max-lines=unlimited")


@dataclass(frozen=True)
class Pager:
    """The program a diff is handed to."""

    argv: list[str]
    delta: bool = False
    """delta reads a bare unified diff (no heading lines of the harness)."""


def choose_pager(env: Mapping[str, str], which: Callable[[str], str | None] | None = None) -> Pager:
    """delta when installed, else ``$PAGER`` (split as a shell would), else less or more.

    ``which`` finds a program (default: on ``env``'s ``PATH``, the pager's own).
    """
    find = which or (lambda name: shutil.which(name, path=env.get("PATH")))
    delta = find("delta")
    if delta is not None:
        return Pager([delta, *DELTA_ARGS], delta=True)
    pager = shlex.split(env.get("PAGER", ""))
    if pager:
        return Pager(pager)
    less = find("less")
    return Pager([less] if less is not None else ["more"])


def pager_text(review: ReviewDiff, pager: Pager) -> str:
    """What ``pager`` reads: the escaped diff, with the harness's lines around it unless
    it is delta (which parses the diff itself)."""
    if pager.delta:
        return "\n".join(item.text for item in review.files) + "\n"
    return "\n".join(review_lines(review)) + "\n"


def run_pager(review: ReviewDiff, env: Mapping[str, str] | None = None) -> str | None:
    """Show ``review`` in the chosen pager on this terminal, waiting for it to end.

    Returns:
        ``None`` once the pager ended normally, else one line saying what went wrong.
    """
    env = os.environ if env is None else env
    pager = choose_pager(env)
    handle, name = tempfile.mkstemp(prefix="harness-diff-", suffix=".diff")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(pager_text(review, pager))
        with path.open("rb") as diff:
            done = subprocess.run(pager.argv, stdin=diff, env=dict(env), check=False)
    except OSError as e:
        return f"cannot run {printable_line(shlex.join(pager.argv))}: {e.strerror or e}"
    finally:
        path.unlink(missing_ok=True)
    if done.returncode != 0:
        return f"{printable_line(pager.argv[0])} ended with status {done.returncode}"
    return None

"""Arguments shared by every program's rules: paths, option values and backgrounding."""

from __future__ import annotations

from collections.abc import Callable

from agent.core.policy.context import Denied
from agent.core.policy.judging import Judge
from agent.core.policy.syntax import Word

Rule = Callable[[Judge, str, list[Word]], None]
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
    read from standard input), unless the project allows one-liners or the session is
    sandboxed: inline code has the powers of a script file in the project, which runs
    already, and the sandbox contains both alike."""
    if not (judge.context.settings.allow_one_liners or judge.context.sandboxed):
        raise Denied(
            f"{what} runs a program the harness cannot check; write it to a file in the "
            "project and run that file (or use the project's test command)"
        )


def background(judge: Judge, what: str) -> None:
    """Deny starting a process that outlives the command, unless the project allows it.

    In a sandboxed session a plain ``&`` is allowed: the job lives in the sandbox's PID
    namespace, which the kernel empties when the session ends, so it cannot outlive the
    session nor touch anything the session could not. ``nohup``, ``setsid`` and
    ``disown`` stay denied there: they ask for a process that outlives the session,
    which the sandbox will not give, and the model should not count on one.
    """
    if judge.context.settings.allow_background:
        return
    if judge.context.sandboxed:
        if what == "&":
            return
        raise Denied(
            f"{what} asks for a process that outlives this session, and nothing started "
            "in the sandbox does (it ends with the session); to keep a job running while "
            "you work, end its command with & instead"
        )
    raise Denied(
        f"{what} starts a process that keeps running in the background; run the "
        "command in the foreground (with a timeout if it may hang)"
    )


#: Programs that run a word of their arguments as code (``sh -c TEXT``, ``python -c``).
CODE_RUNNERS = frozenset(
    {"bash", "sh", "dash", "ksh", "mksh", "rbash", "eval", "node", "nodejs", "perl", "ruby",
     "php", "lua", "Rscript", "awk", "gawk", "sed"}
)  # fmt: skip


def refuse_names_in_code(words: list[Word], placeholder: str, what: str) -> None:
    """``find -exec sh -c 'echo {}'``, ``xargs -I{} python -c 'f("{}")'``: each file name
    would be pasted into text a shell or an interpreter runs, and a file name can hold
    commands (``$(…)``, ``;``). Names passed as whole arguments are data."""
    if not words or words[0].text is None:
        return
    program = words[0].text.rsplit("/", 1)[-1]
    code_runner = program in CODE_RUNNERS or program.startswith(("python", "pypy"))
    for word in words[1:]:
        text = word.text or ""
        if code_runner and placeholder in text and text != placeholder:
            raise Denied(
                f"{what} would paste file names into the code {program} runs, and a name "
                f"can hold commands; pass them as arguments instead (sh -c '… \"$1\"' _ "
                f"{placeholder})"
            )

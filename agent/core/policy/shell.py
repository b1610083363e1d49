"""Shell builtins and wrappers: text commands, ``cd``, ``eval``, ``env``, ``timeout``….

Wrappers (``env``, ``timeout``, ``nice``, ``time``, ``command``, ``stdbuf``) are looked
through: the command they run is judged. ``eval`` of literal text is judged like any
command; ``source`` is denied, but for a venv's activate script in a sandboxed
session. Builtins that set variables (``read``, ``mapfile``,
``getopts``, ``printf -v``) have the variable names checked. ``nohup``, ``setsid``,
``disown`` count as backgrounding.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from agent.core.policy.arguments import Rule, background, refuse_names_in_code
from agent.core.policy.context import Denied
from agent.core.policy.judging import Judge
from agent.core.policy.syntax import Word
from agent.core.policy.variables import check_variable_name

#: Programs whose arguments are text, not paths.
TEXT_PROGRAMS = frozenset(
    {
        "echo", "printf", "true", "false", "test", "[", ":", "seq", "sleep", "expr",
        "basename", "dirname", "which", "type", "whoami", "id", "uname", "nproc", "printenv",
        "tr", "yes", "set", "wait", "exit", "return", "break", "continue", "shift",
        "let", "umask", "dirs", "jobs", "unalias", "unset",
        "locale", "tty", "arch", "cal",
    }
)  # fmt: skip


def _text(judge: Judge, program: str, args: list[Word]) -> None:
    if program == "date" and any((w.text or "").startswith(("-s", "--set")) for w in args):
        raise Denied("date --set changes the machine's clock; it is not allowed")
    if program == "date":  # date -f FILE prints every line of FILE in its errors
        for index, word in enumerate(args):
            text = word.text or ""
            if text in ("-f", "--file") and index + 1 < len(args):
                judge.check_path(args[index + 1], write=False)
            elif text.startswith(("-f", "--file=")) and len(text) > 2:
                value = text.removeprefix("--file=").removeprefix("-f")
                judge.check_path(Word(word.raw, value), write=False)
    if program == "printf":
        texts = [w.text for w in args]
        if "-v" in texts and texts.index("-v") + 1 < len(texts):
            _check_names(args[texts.index("-v") + 1 : texts.index("-v") + 2])


def _check_names(words: list[Word]) -> None:
    for word in words:
        if word.text is None:
            raise Denied(f"the variable name {word.raw} must be written out")
        check_variable_name(word.text.partition("[")[0])


def _reads_variables(judge: Judge, program: str, args: list[Word]) -> None:
    """read, mapfile, readarray, getopts: the variables they set are checked by name."""
    names = [w for w in args if w.text is None or w.text.isidentifier()]
    _check_names(names)


def _cd(judge: Judge, program: str, args: list[Word]) -> None:
    targets = [w for w in args if not (w.text or "").startswith("-")]
    if program == "pushd" and not targets:
        raise Denied("pushd without a folder swaps folders the harness cannot follow")
    if not targets:
        raise Denied("cd without a folder goes to the home folder, outside the project; "
                     "cd into a project folder")  # fmt: skip
    if any(w.text == "-" for w in args):
        raise Denied("cd - returns to a folder the harness cannot follow; name the folder")
    judge.change_folder(targets[0])


def _popd(judge: Judge, program: str, args: list[Word]) -> None:
    judge.change_folder(None)


def _wrapper(skip: Callable[[list[Word]], int]) -> Rule:
    """A program that runs the rest of its arguments as a command."""

    def rule(judge: Judge, program: str, args: list[Word]) -> None:
        start = skip(args)
        if start < len(args):
            judge.judge_words(args[start:])

    return rule


def _skip_options(with_value: frozenset[str], positional_values: int = 0) -> Callable[
    [list[Word]], int
]:  # fmt: skip
    def skip(args: list[Word]) -> int:
        index = 0
        while index < len(args):
            text = args[index].text or ""
            if text == "--":
                index += 1
                break
            if not text.startswith("-") or text == "-":
                break
            index += 2 if text in with_value else 1
        return index + positional_values

    return skip


def _env(judge: Judge, program: str, args: list[Word]) -> None:
    index = 0
    while index < len(args):
        text = args[index].text
        if text is None:
            raise Denied(f"env {args[index].raw}: write the variables out literally")
        if text in ("-S", "--split-string") or text.startswith(("-S", "--split-string")):
            raise Denied("env -S splits a string into a command the harness cannot check")
        if text in ("-C", "--chdir"):
            judge.check_path(args[index + 1] if index + 1 < len(args) else Word("", ""),
                             write=False, what="folder")  # fmt: skip
            index += 2
            continue
        if text in ("-u", "--unset"):
            index += 2
            continue
        if text.startswith("-"):
            index += 1
            continue
        if "=" in text:
            check_variable_name(text.partition("=")[0], sandboxed=judge.context.sandboxed)
            index += 1
            continue
        break
    if index < len(args):
        judge.judge_words(args[index:])


def _command(judge: Judge, program: str, args: list[Word]) -> None:
    if args and args[0].text in ("-v", "-V"):
        return
    start = 1 if args and args[0].text == "-p" else 0
    if start < len(args):
        judge.judge_words(args[start:])


def _background_wrapper(judge: Judge, program: str, args: list[Word]) -> None:
    background(judge, program)
    start = _skip_options(frozenset())(args)
    if start < len(args):
        judge.judge_words(args[start:])


def _eval(judge: Judge, program: str, args: list[Word]) -> None:
    if any(w.text is None for w in args):
        raise Denied(
            "eval of text built from variables or substitutions runs commands the harness "
            "cannot check; run the command directly"
        )
    judge.run_nested(" ".join(w.text or "" for w in args), same_shell=True)


def _source(judge: Judge, program: str, args: list[Word]) -> None:
    """``source .venv/bin/activate`` in a sandboxed session; nothing else.

    The activate script is a project file: running it in this shell gives it no power a
    project script run with ``bash`` lacks, and the sandbox contains both. Any other
    file stays denied: sourcing ``.env`` or a script the model wrote is how variables
    the policy guards (``PATH``, ``LD_PRELOAD``) would be set unseen.
    """
    script = args[0] if len(args) == 1 else None
    if judge.context.sandboxed and script is not None and _is_activate(script):
        judge.check_path(script, write=False)
        return
    raise Denied(
        f"{program} runs a file's commands in this shell without the harness seeing them; "
        "the project's .venv/bin is already first on PATH, so run python, pytest and the "
        "project's tools directly"
    )


def _is_activate(word: Word) -> bool:
    """A virtual environment's activate script (``.venv/bin/activate``, ``venv/bin/activate``)."""
    parts = PurePosixPath(word.text or "").parts
    return len(parts) >= 3 and parts[-2:] == ("bin", "activate") and not word.glob


#: xargs options that take a value as the next word.
_XARGS_VALUES = frozenset({"-I", "-i", "-n", "-P", "-L", "-l", "-s", "-d", "-E", "-e", "-a",
                           "--max-args", "--max-procs", "--max-lines", "--max-chars",
                           "--delimiter", "--eof", "--arg-file", "--replace",
                           "--process-slot-var"})  # fmt: skip


def _xargs(judge: Judge, program: str, args: list[Word]) -> None:
    """``xargs PROG ARGS`` in a sandboxed session: ``PROG ARGS`` is judged as written.

    The words xargs appends come from its input (file names from ``find`` or ``git
    ls-files``, most often): the harness does not see them, as it does not see the
    names a project script opens. The sandbox bounds both. ``-p`` (asks at a terminal)
    and ``--process-slot-var`` (sets a variable) stay denied; ``-I R`` marks where each
    input goes, judged as the current folder."""
    if not judge.context.sandboxed:
        raise Denied(
            "xargs runs other programs in a way the harness cannot check; run the command "
            "directly instead"
        )
    index = 0
    replace: str | None = None
    while index < len(args):
        word = args[index]
        text = word.text
        if text is None:
            raise Denied(f"the xargs argument {word.raw} must be written out")
        if text == "--":
            index += 1
            break
        if not text.startswith("-") or text == "-":
            break
        option, _, attached = text.partition("=") if text.startswith("--") else (text, "", "")
        if text in ("-p", "--interactive") or option == "--process-slot-var":
            raise Denied(f"xargs {text} waits for a person or sets a variable; not allowed")
        short_value = not text.startswith("--") and len(text) > 2 and text[:2] in _XARGS_VALUES
        value: Word | None = None
        if short_value:
            value = Word(word.raw, text[2:])
            option = text[:2]
        elif attached:
            value = Word(word.raw, attached)
        elif option in _XARGS_VALUES and index + 1 < len(args):
            value = args[index + 1]
            index += 1
        if option in ("-a", "--arg-file") and value is not None:
            judge.check_path(value, write=False)
        if option in ("-I", "-i", "--replace"):
            replace = (value.text if value is not None else None) or "{}"
        index += 1
    command = args[index:]
    if not command:
        return  # xargs alone runs echo
    if replace is not None:
        refuse_names_in_code(command, replace, f"xargs -I{replace}")
        command = [
            Word(w.raw, w.text.replace(replace, "."), plain=False)
            if w.text is not None and replace in w.text
            else w
            for w in command
        ]
    judge.judge_words(command)


def _disown(judge: Judge, program: str, args: list[Word]) -> None:
    background(judge, program)


RULES: dict[str, Rule] = {
    **dict.fromkeys(TEXT_PROGRAMS | {"date"}, _text),
    **dict.fromkeys(("read", "mapfile", "readarray", "getopts"), _reads_variables),
    "cd": _cd,
    "pushd": _cd,
    "popd": _popd,
    "env": _env,
    "command": _command,
    "eval": _eval,
    "source": _source,
    ".": _source,
    "nohup": _background_wrapper,
    "setsid": _background_wrapper,
    "disown": _disown,
    "xargs": _xargs,
    "bg": _disown,
    "fg": _disown,
    "timeout": _wrapper(
        _skip_options(frozenset({"-s", "--signal", "-k", "--kill-after"}), positional_values=1)
    ),
    "nice": _wrapper(_skip_options(frozenset({"-n", "--adjustment"}))),
    "time": _wrapper(_skip_options(frozenset())),
    "stdbuf": _wrapper(_skip_options(frozenset({"-i", "-o", "-e"}))),
}

"""Interpreters and shells: project scripts run, one-liners and unseen text do not.

* ``python script.py``, ``node app.js``, ``bash scripts/check.sh``: the script must be
  a file inside the project. Running the project's code is the job of a coding agent.
* One-liners (``python -c``, ``node -e``, ``perl -e``, ``ruby -e``, ``php -r``) and an
  interpreter reading its program from an open file instead of a project file: standard
  input (``curl … | python``, ``python - <<EOF``), ``/dev/stdin``, ``/dev/fd/N``,
  ``/proc/self/fd/N`` or ``<(…)`` (:mod:`.inputs`), are denied unless the project sets
  ``allow_one_liners`` or the session is sandboxed (inline code has a script file's
  powers, and a script file runs already).
* ``python -m``: the project's own modules and a list of development tools (pytest,
  unittest, mypy, ruff, coverage, pip with its own rules…); ``http.server`` and other
  modules are denied.
* ``bash -c TEXT`` / ``sh -c TEXT``: TEXT is parsed and judged like any command when it is
  written out literally; otherwise denied. A shell reading its commands from an open file
  (``… | sh``, ``bash -s``, ``bash /dev/stdin <<< …``, ``sh <(…)``) is a one-liner: denied
  unless the project sets ``allow_one_liners``, and then only a here-string or
  here-document written out literally, judged like ``-c`` text. ``bash -i`` is denied.
* ``sed`` and ``awk`` programs are scanned for the commands that run programs or touch
  other files (``sed e``/``w``/``r``, ``s///e``; awk ``system``, ``getline``, pipes).
"""

from __future__ import annotations

import re

from agent.core.policy import tools
from agent.core.policy.arguments import Rule, check_paths, one_liner
from agent.core.policy.context import Denied
from agent.core.policy.inputs import FROM_STANDARD_INPUT, STANDARD_INPUT, OpenFile, open_file_of
from agent.core.policy.judging import Judge
from agent.core.policy.syntax import Word

_PYTHON = re.compile(r"(python|pypy)(\d+(\.\d+)*)?")
_PY_VALUE_FLAGS = frozenset("WXQ")
PYTHON_MODULES = frozenset(
    {
        "pytest", "unittest", "mypy", "ruff", "black", "isort", "flake8", "pylint",
        "pyflakes", "pycodestyle", "pydocstyle", "pyright", "coverage", "doctest",
        "compileall", "py_compile", "tox", "nox", "timeit", "cProfile", "profile", "pstats",
        "tokenize", "tabnanny", "json.tool", "venv", "pip", "trace", "dis", "ast",
        "sysconfig", "platform", "site", "bandit", "vulture", "build", "unittest.mock",
    }
)  # fmt: skip
#: Modules that wait for a person at a terminal: denied even where any module runs.
INTERACTIVE_MODULES = frozenset({"pdb", "code", "pty", "idlelib", "ipdb", "IPython", "ptpython",
                                 "bpython", "turtledemo"})  # fmt: skip
_SHELL_OK_FLAGS = frozenset("exuvnEhBCHPTfa")
_AWK_DANGER = re.compile(r"system\s*\(|getline|\||print[f]?[^;}]*>|ENVIRON|PROCINFO|@load|@include")


def is_python(program: str) -> bool:
    """``python``, ``python3``, ``python3.12``, ``pypy3``…"""
    return _PYTHON.fullmatch(program) is not None


def _program_file(judge: Judge, args: list[Word], index: int) -> OpenFile | None:
    """Where an interpreter reads its program when ``args[index]`` is its file: an open
    file (standard input when there is no file), or ``None`` for a file of the project."""
    if index >= len(args):
        return FROM_STANDARD_INPUT
    return open_file_of(args[index], sorted(judge.cwds))


def _reading(program: str, source: OpenFile) -> str:
    return f"{program} reading its program from {source.shown}"


def python(judge: Judge, program: str, args: list[Word]) -> None:
    """``python [options] (script | -m module | -c code | -)``."""
    index = 0
    while index < len(args):
        text = args[index].text
        if args[index].fd_path:
            break
        if text is None:
            raise Denied(f"the {program} argument {args[index].raw} must be written out")
        if text in ("--version", "-V", "--help", "-h", "-VV"):
            return
        if text == "-" or not text.startswith("-"):
            break
        cluster = text[1:] if not text.startswith("--") else ""
        for position, flag in enumerate(cluster):
            if flag == "c":
                one_liner(judge, f"{program} -c")
                check_paths(judge, args[index + 2 :], write=True)
                return
            if flag == "i":
                raise Denied(f"{program} -i is interactive; run a script or the tests instead")
            if flag == "m":
                attached = cluster[position + 1 :]
                module_at = index if attached else index + 1
                module = attached or (args[module_at].text if module_at < len(args) else None)
                _module(judge, program, module, args[module_at + 1 :])
                return
            if flag in _PY_VALUE_FLAGS:
                index += 0 if cluster[position + 1 :] else 1
                break
        index += 1
    source = _program_file(judge, args, index)
    if source is not None:
        one_liner(judge, _reading(program, source))
        check_paths(judge, args[index + 1 :], write=True)
        return
    check_paths(judge, args[index:], write=True)


def _module(judge: Judge, program: str, module: str | None, rest: list[Word]) -> None:
    if module is None:
        raise Denied(f"{program} -m needs a module name written out")
    top = module.split(".")[0]
    if module == "pip" or top == "pip":
        tools.pip(judge, "pip", rest)
        return
    if top in INTERACTIVE_MODULES:
        raise Denied(
            f"{program} -m {module} is interactive (it waits for a person); run a script or "
            "the tests instead"
        )
    known = module in PYTHON_MODULES or top in PYTHON_MODULES or _project_module(judge, top)
    if known or (judge.context.sandboxed and top.isidentifier()):
        # In the sandbox any installed module runs with the powers of `python -c
        # "import runpy; runpy.run_module(…)"`, which a sandboxed session may run.
        if module in ("coverage",) and rest and rest[0].text == "run":
            _coverage_run(judge, rest[1:])
            return
        check_paths(judge, rest, write=True)
        return
    raise Denied(
        f"{program} -m {module} is not a module of the project nor an allowed tool "
        "(pytest, unittest, mypy, ruff, coverage, …); run the project's code or its tests"
    )


def _coverage_run(judge: Judge, rest: list[Word]) -> None:
    """``coverage run [options] (script | -m module)``: judged like python itself."""
    index = 0
    while (
        index < len(rest)
        and (rest[index].text or "").startswith("-")
        and rest[index].text not in ("-m",)
    ):
        index += 1
    python(judge, "coverage run", rest[index:])


def _project_module(judge: Judge, top: str) -> bool:
    if not top.isidentifier():
        return False
    root = judge.root
    return any(
        (base / top).is_dir() or (base / f"{top}.py").is_file()
        for base in (root, root / "src", *judge.cwds)
    )


def coverage(judge: Judge, program: str, args: list[Word]) -> None:
    """``coverage run …`` runs Python; its other subcommands read and write reports."""
    if args and args[0].text == "run":
        _coverage_run(judge, args[1:])
        return
    check_paths(judge, args, write=True)


#: Flags that start a REPL: denied even where one-liners run (it would wait for a person).
_INTERACTIVE_FLAGS: dict[str, tuple[str, ...]] = {
    "php": ("-a",),
    "lua": ("-i",),
    "luajit": ("-i",),
    "node": ("-i", "--interactive"),
    "nodejs": ("-i", "--interactive"),
}
_ONE_LINER_FLAGS: dict[str, tuple[str, ...]] = {
    "node": ("-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader"),
    "nodejs": ("-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader"),
    "perl": (),
    "ruby": ("-e",),
    "php": ("-r", "-a", "-B", "-R", "-E", "-F"),
    "lua": ("-e", "-l", "-i"),
    "luajit": ("-e", "-l", "-i"),
    "Rscript": ("-e", "--expr"),
    "tclsh": (),
    "awk": (),
}


def script_interpreter(judge: Judge, program: str, args: list[Word]) -> None:
    """node, perl, ruby, php, lua, Rscript: a project script yes, inline code no."""
    flags = _ONE_LINER_FLAGS.get(program, ())
    index = 0
    while index < len(args):
        text = args[index].text
        if args[index].fd_path:
            break
        if text is None:
            raise Denied(f"the {program} argument {args[index].raw} must be written out")
        if text in ("--version", "-v", "-V", "--help", "-h"):
            return
        if not text.startswith("-") or text == "-":
            break
        if text.startswith(("--inspect", "--debug")) or (program == "php" and text == "-S"):
            raise Denied(f"{program} {text} opens a network port; not allowed")
        bundled_e = program in ("perl", "ruby") and not text.startswith("--") and (
            set(text[1:]) & set("eE")
        )  # fmt: skip
        if text in _INTERACTIVE_FLAGS.get(program, ()):
            raise Denied(f"{program} {text} is interactive; run a script or the tests instead")
        if text.split("=", 1)[0] in _MODULE_FLAGS:
            _check_preloaded(judge, args, index)
        if text.split("=", 1)[0] in flags or bundled_e:
            one_liner(judge, f"{program} {text}")
            check_paths(judge, args[index + 2 :], write=True)
            return
        index += 1
    source = _program_file(judge, args, index)
    if source is not None:
        one_liner(judge, _reading(program, source))
        check_paths(judge, args[index + 1 :], write=True)
        return
    check_paths(judge, args[index:], write=True)


#: node options whose value is a module loaded before the program: a file to check.
_MODULE_FLAGS = frozenset({"-r", "--require", "--import", "--loader"})


def _check_preloaded(judge: Judge, args: list[Word], index: int) -> None:
    """``node -r MODULE``: a module given as a path stays in the project (a name such as
    ``ts-node/register`` resolves inside it too and is looked up in node_modules)."""
    text = args[index].text or ""
    value = Word(args[index].raw, text.partition("=")[2]) if "=" in text else None
    if value is None and index + 1 < len(args):
        value = args[index + 1]
    if value is not None:
        judge.check_path(value, write=False)


def shell(judge: Judge, program: str, args: list[Word]) -> None:
    """bash/sh/dash/ksh: ``-c`` text is judged; a script must be a project file."""
    index = 0
    wants_command = reads_input = False
    while index < len(args):
        text = args[index].text
        if args[index].fd_path:
            break
        if text is None:
            raise Denied(f"the {program} argument {args[index].raw} must be written out")
        if text in ("--version", "--help"):
            return
        if text in ("-o", "+o"):
            index += 2
            continue
        if text in ("--norc", "--noprofile", "--posix", "--"):
            index += 1
            if text == "--":
                break
            continue
        if not text.startswith(("-", "+")) or text in ("-", "+"):
            break
        flags = set(text[1:])
        if "c" in flags:
            wants_command = True
            flags.discard("c")
        if "s" in flags:
            reads_input = True
            flags.discard("s")
        if text.startswith("--") or not flags <= _SHELL_OK_FLAGS:
            raise Denied(
                f"{program} {text} reads commands from its input, a startup file or a "
                "terminal the harness cannot check; run the commands directly"
            )
        index += 1
    if wants_command:
        if index >= len(args):
            raise Denied(f"{program} -c needs a command")
        text = args[index].text
        if text is None:
            raise Denied(
                f"{program} -c of text built from variables or substitutions runs commands "
                "the harness cannot check; run the command directly"
            )
        judge.run_nested(text)
        return
    source = FROM_STANDARD_INPUT if reads_input else _program_file(judge, args, index)
    if source is not None:
        _shell_from_open_file(judge, program, source)
        check_paths(judge, args[index + (0 if reads_input else 1) :], write=True)
        return
    check_paths(judge, args[index:], write=True)


def _shell_from_open_file(judge: Judge, program: str, source: OpenFile) -> None:
    """A shell reading its commands from standard input or another open file: a
    one-liner; when the project allows those (or the session is sandboxed), a literal
    here-string or here-document on standard input is judged like ``-c`` text, and
    anything else (a pipe, a file, an expansion, ``<(…)``) is text the harness cannot
    see."""
    what = f"{program} reading its commands from {source.shown}"
    if not (judge.context.settings.allow_one_liners or judge.context.sandboxed):
        raise Denied(
            f"{what} runs text the harness cannot check as a script; run the commands "
            "directly, or write them to a script in the project and run that script"
        )
    text = judge.input_text if source.descriptor == STANDARD_INPUT else None
    if text is None:
        raise Denied(
            f"{what} runs text the harness cannot see (a pipe, a file, another descriptor "
            "or text built from variables); run the commands directly, or give them in a "
            "here-string or a quoted here-document"
        )
    judge.run_nested(text)


def awk(judge: Judge, program: str, args: list[Word]) -> None:
    """awk's program is scanned for ``system``, ``getline``, pipes and file output."""
    index = 0
    while index < len(args):
        text = args[index].text
        if text is None:
            raise Denied(f"the {program} argument {args[index].raw} must be written out")
        if text in ("-f", "--file", "-i", "--include", "-l", "--load", "-E", "--exec") or (
            text.startswith(("-f", "--file=", "-l", "--load=", "-i", "--include="))
        ):
            raise Denied(
                f"{program} {text} runs a program from a file or library the harness cannot "
                "check; write the awk program inline"
            )
        if text in ("-F", "-v", "--field-separator", "--assign"):
            index += 2
            continue
        if text == "--" or not text.startswith("-") or text == "-":
            index += 1 if text == "--" else 0
            break
        index += 1
    if index >= len(args):
        return
    source = args[index].text or ""
    if _AWK_DANGER.search(source):
        raise Denied(
            f"this {program} program runs commands or writes files (system, getline, pipes "
            "or >); use awk only to read and print"
        )
    check_paths(judge, args[index + 1 :], write=True)


_SED_WRITE_FLAGS = frozenset("we")
#: Every command letter of GNU sed (``e``, ``w``, ``W``, ``r``, ``R`` are refused below).
_SED_LETTERS = frozenset("aicdDgGhHlnNpPqQsStTvxyz=#:bFeWwrR}")


def sed(judge: Judge, program: str, args: list[Word]) -> None:
    """sed scripts may not run commands (``e``, ``s///e``) or read or write other files."""
    scripts: list[str] = []
    positionals: list[Word] = []
    in_place = explicit = False
    index = 0
    while index < len(args):
        text = args[index].text
        if text is None:
            raise Denied(f"the sed argument {args[index].raw} must be written out")
        following = args[index + 1].text if index + 1 < len(args) else None
        if text in ("-e", "--expression") or text.startswith("--expression="):
            value = text.partition("=")[2] if "=" in text else following
            index += 1 if "=" in text else 2
            scripts.append(value or "")
            explicit = True
            continue
        if text in ("--file",) or text.startswith("--file="):
            raise Denied("sed -f runs a script file the harness cannot check; use -e")
        if text.startswith("--"):
            in_place = in_place or text.startswith("--in-place")
            index += 2 if text == "--line-length" else 1
            continue
        if text.startswith("-") and text != "-":
            step = 1
            for position, flag in enumerate(text[1:]):
                if flag == "f":
                    raise Denied("sed -f runs a script file the harness cannot check; use -e")
                if flag == "i":
                    in_place = True
                    break  # the rest is the backup suffix
                if flag in "el":
                    if flag == "e":
                        scripts.append(text[position + 2 :] or following or "")
                        explicit = True
                    step = 1 if text[position + 2 :] else 2
                    break
            index += step
            continue
        positionals.append(args[index])
        index += 1
    if not explicit and positionals:
        scripts.append(positionals.pop(0).text or "")
    for script in scripts:
        reason = sed_script_danger(script)
        if reason:
            raise Denied(reason)
    check_paths(judge, positionals, write=in_place)


def sed_script_danger(script: str) -> str | None:
    """Why a sed script is refused: it runs a command or touches another file."""
    for command in _sed_commands(script):
        if not command:
            continue
        letter = command[0]
        if letter not in _SED_LETTERS:
            return "the harness could not read this sed script; write it more simply"
        if letter in "eWwrR":
            return (
                f"the sed command {letter!r} runs a program or reads or writes another file; "
                "use sed only to print or substitute"
            )
        if letter in "sy" and len(command) > 1:
            flags = _substitution_flags(command)
            if flags is None:
                return "the harness could not read this sed script; write it more simply"
            if set(flags) & _SED_WRITE_FLAGS:
                return (
                    "the sed s///e and s///w flags run a program or write a file; "
                    "use plain substitutions"
                )
    return None


def _sed_commands(script: str) -> list[str]:
    """The commands of a script, addresses stripped (split at ``;`` and newlines)."""
    commands: list[str] = []
    for piece in re.split(r"[;\n]", script):
        stripped = re.sub(r"^\s*(\d+|\$|/(\\.|[^/])*/|~\d+|,|!|\+\d+|\s)*", "", piece)
        stripped = stripped.lstrip("{} ")
        commands.append(stripped)
    return commands


def _substitution_flags(command: str) -> str | None:
    delimiter = command[1]
    parts = 0
    index = 2
    while index < len(command) and parts < 2:
        if command[index] == "\\":
            index += 2
            continue
        if command[index] == delimiter:
            parts += 1
        index += 1
    if parts < 2:
        return "" if command[0] == "y" else None
    return command[index:]


RULES: dict[str, Rule] = {
    **dict.fromkeys(("bash", "sh", "dash", "ksh", "mksh", "rbash"), shell),
    **dict.fromkeys(_ONE_LINER_FLAGS.keys() - {"awk"}, script_interpreter),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), awk),
    "sed": sed,
    "coverage": coverage,
}

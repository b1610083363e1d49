"""Programs that read and write files: their paths stay in the project.

Reading programs may read anywhere in the project; writing programs (``rm``, ``cp``,
``mv``, ``tee``…) also stay out of ``.git/`` and ``.claude-agent/``. ``rm -r`` of the
project root or of everything in it, ``chmod -R`` and set-id modes are denied; options
that make a file tool run a program (``tar --to-command``, ``zip -TT``, ``split
--filter``, ``find -exec``) are denied.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

from agent.core.policy.arguments import Rule, check_paths, refuse_names_in_code
from agent.core.policy.context import Denied
from agent.core.policy.inputs import descriptor_of
from agent.core.policy.judging import Judge
from agent.core.policy.protected import (
    GIT_ENTRY,
    HARNESS_FOLDERS,
    PROTECTED_MARKS,
    is_protected_name,
)
from agent.core.policy.syntax import Word

#: Programs that read the files they are given.
READ_PROGRAMS = frozenset(
    {
        "cat", "head", "tail", "wc", "ls", "nl", "tac", "cut", "paste", "join",
        "comm", "diff", "diff3", "cmp", "file", "stat", "du", "md5sum", "sha1sum",
        "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "od",
        "hexdump", "strings", "realpath", "readlink", "column", "fold", "fmt", "expand",
        "unexpand", "rev", "base64", "base32", "pwd", "df", "zcat",
    }
)  # fmt: skip
#: Programs that change the files they are given.
WRITE_PROGRAMS = frozenset(
    {"touch", "mkdir", "rmdir", "cp", "mv", "tee", "truncate", "install", "split", "csplit",
     "uniq", "tree", "xxd", "iconv",
     "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zip", "unzip", "patch"}
)  # fmt: skip


def _read(judge: Judge, program: str, args: list[Word]) -> None:
    if any((w.text or "").startswith("--compress-program") for w in args):
        raise Denied(f"{program} --compress-program runs a program; not allowed")
    check_paths(judge, args)


_PROGRAM_OPTIONS = {
    "zip": ("-TT", "--unzip-command"),
    "split": ("--filter",),
    "install": ("--strip-program", "-s", "--strip"),
}


def _write(judge: Judge, program: str, args: list[Word]) -> None:
    for word in args:
        text = word.text or ""
        if text.startswith(_PROGRAM_OPTIONS.get(program, ())):
            raise Denied(f"{program} {text} runs another program; not allowed")
        if program in ("cp", "mv") and Path(text).name in HARNESS_FOLDERS:
            raise Denied(
                f"{program} {text} copies a folder that belongs to the harness; "
                "copy project files only"
            )
    check_paths(judge, args, write=True)


def _sort(judge: Judge, program: str, args: list[Word]) -> None:
    _read(judge, program, args)
    for index, word in enumerate(args):
        if word.text == "-o" and index + 1 < len(args):
            judge.check_path(args[index + 1], write=True)
        elif (word.text or "").startswith(("-o", "--output=")) and len(word.text or "") > 2:
            value = (word.text or "").removeprefix("--output=").removeprefix("-o")
            judge.check_path(Word(word.raw, value), write=True)


def _rm(judge: Judge, program: str, args: list[Word]) -> None:
    recursive = any(
        w.text in ("-r", "-R", "--recursive")
        or (
            (w.text or "").startswith("-")
            and not (w.text or "").startswith("--")
            and set((w.text or "")[1:]) & set("rR")
        )
        for w in args
    )
    check_paths(judge, args, write=True, removing=True)
    if not recursive:
        return
    for word in args:
        text = word.text or ""
        if text.startswith("-"):
            continue
        for cwd in judge.cwds:
            target = (cwd / text).resolve()
            whole = word.glob and set(Path(text).name) <= set("*.?")
            parent = (cwd / text).parent.resolve()
            if target == judge.root or (whole and parent == judge.root):
                raise Denied(
                    f"rm -r {word.raw} would delete the whole project; delete the files "
                    "or folders you mean by name"
                )


_SETID_MODE = re.compile(r"^[0-7]*[2-7][0-7]{3}$")


def _chmod(judge: Judge, program: str, args: list[Word]) -> None:
    positionals = [w for w in args if not (w.text or "").startswith("-") or w.text == "-"]
    options = [w for w in args if w not in positionals]
    if any(
        w.text in ("--recursive",) or "R" in (w.text or "")[1:]
        for w in options
        if not (w.text or "").startswith("--") or w.text == "--recursive"
    ):
        raise Denied("chmod -R changes modes of a whole tree; chmod the files you mean by name")
    if positionals:
        mode = positionals[0].text or ""
        if "s" in mode or "t" in mode or _SETID_MODE.match(mode):
            raise Denied("set-user-ID, set-group-ID and sticky modes are not allowed")
    check_paths(judge, args, write=True, skip_positionals=1)


def _ln(judge: Judge, program: str, args: list[Word]) -> None:
    positionals = [w for w in args if not (w.text or "-").startswith("-")]
    for word in positionals:
        if descriptor_of(word.text or "", sorted(judge.cwds)) is not None:
            raise Denied(
                f"a link to {word.raw} would let a program read its input as a project "
                "file; write the script to a file in the project instead"
            )
    check_paths(judge, args, write=True)
    symbolic = any(
        w.text == "--symbolic"
        or ((w.text or "").startswith("-") and not (w.text or "").startswith("--")
            and "s" in (w.text or ""))
        for w in args
    )  # fmt: skip
    if not symbolic or len(positionals) < 2:
        return
    target, link = positionals[0].text or "", positionals[-1].text or ""
    if Path(target).is_absolute():
        return  # checked above
    for cwd in judge.cwds:  # a relative target is read from the link's own folder
        place = cwd / link
        folder = place if place.is_dir() else place.parent
        if not (folder / target).resolve().is_relative_to(judge.root):
            raise Denied(
                f"the link target {positionals[0].raw} points outside the project; "
                "links must stay inside the project"
            )


def _dd(judge: Judge, program: str, args: list[Word]) -> None:
    for word in args:
        key, _, value = (word.text or "").partition("=")
        if word.text is None or (key in ("if", "of") and not value):
            raise Denied(f"dd {word.raw}: write the files out literally")
        if key in ("if", "of"):
            judge.check_path(Word(word.raw, value), write=key == "of")


def _find(judge: Judge, program: str, args: list[Word]) -> None:
    index = 0
    while index < len(args) and not (args[index].text or "-").startswith(("-", "(", "!", ")")):
        judge.check_path(args[index], write=False)
        index += 1
    starts = [w.text or "." for w in args[:index]] or ["."]
    expression = args[index:]
    skip_to = 0
    for position, word in enumerate(expression):
        if position < skip_to:
            continue
        text = word.text
        if text is None:
            raise Denied(
                f"the find argument {word.raw} is built from a variable or substitution; "
                "write it out"
            )
        if text in ("-exec", "-execdir") and judge.context.sandboxed:
            skip_to = _find_exec(judge, text, starts, expression, position + 1)
            continue
        if text in ("-exec", "-execdir", "-ok", "-okdir"):
            raise Denied(
                f"find {text} runs programs the harness cannot check; list the files with "
                "find, then run the command on them by name"
            )
        if text in ("-fprint", "-fprint0", "-fprintf", "-fls") and position + 1 < len(expression):
            judge.check_path(expression[position + 1], write=True)
        if text == "-files0-from" and position + 1 < len(expression):
            judge.check_path(expression[position + 1], write=False)


def _find_exec(
    judge: Judge, option: str, starts: list[str], expression: list[Word], first: int
) -> int:
    """``find … -exec PROG ARGS {} ;`` in a sandboxed session: judged as ``PROG ARGS`` on
    the folders find starts from, as if the files were named (a ``-execdir`` program
    runs in their folders, which lie under them). Returns where the expression goes on.

    ``-ok``/``-okdir`` stay denied: they wait for a person at a terminal."""
    end = first
    while end < len(expression) and expression[end].text not in (";", "+"):
        end += 1
    if end >= len(expression):
        raise Denied(f"find {option} needs its command ended with \\; or +")
    command = expression[first:end]
    if not command:
        raise Denied(f"find {option} needs a program to run")
    refuse_names_in_code(command, "{}", f"find {option}")
    tests = expression[:first]
    found = _found_name(tests)
    saved = set(judge.cwds)
    try:
        for start in starts:
            folders = {(cwd / start).resolve() for cwd in saved}
            if option == "-execdir":
                judge.cwds = folders
            shown = "." if option == "-execdir" else start
            judge.judge_words([_with_found(word, shown, found) for word in command])
            for protected in _protected_found(tests, shown, folders):
                try:
                    judge.judge_words([_with_found(word, protected, None) for word in command])
                except Denied as denial:
                    raise Denied(
                        f"find {option} may hand {protected} to {command[0].raw}, and the "
                        "harness reads those files (.git, *.pth, pyvenv.cfg); narrow the "
                        "search with -name or -not -path, or start from a folder without them"
                    ) from denial
    finally:
        judge.cwds = saved
    return end + 1


_NAME_TESTS = frozenset({"-name", "-iname"})
_PATH_TESTS = frozenset({"-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"})
#: How many entries of a start folder the judge looks at for files the harness reads.
_WALK_LIMIT = 20_000


def _protected_found(tests: list[Word], start: str, folders: set[Path]) -> list[str]:
    """The files the harness reads (:mod:`.protected`) that find may hand its program:
    those its tests name (``-path '*/.git/config'``), else, with no ``-name``, those
    under its start folders that its ``-not``/``-prune`` tests do not exclude."""
    texts = [w.text or "" for w in tests]
    named: list[str] = []
    excluded: list[str] = []
    for index, text in enumerate(texts[:-1]):
        value = texts[index + 1]
        if text not in _NAME_TESTS | _PATH_TESTS:
            continue
        negated = index > 0 and texts[index - 1] in ("!", "-not")
        pruned = index + 2 < len(texts) and texts[index + 2] == "-prune"
        if negated or pruned:
            excluded.append(value)
        elif any(mark in value.lower() for mark in PROTECTED_MARKS):
            named.append(f"{start.rstrip('/')}/{value}" if text in _NAME_TESTS else value)
    if named or any(t in _NAME_TESTS for t in texts):
        return named[:1]
    for folder in folders:
        for relative in _protected_under(folder):
            place = f"{start.rstrip('/')}/{relative}"
            if not _excluded(place, excluded):
                return [place]
    return []


def _excluded(place: str, patterns: list[str]) -> bool:
    """Whether a ``-not -path``/``-prune`` pattern keeps ``place`` (or what is in it) out."""
    return any(
        fnmatch.fnmatchcase(candidate, pattern)
        for pattern in patterns
        for candidate in (place, f"{place}/x")
    ) or any(place.startswith(f"{pattern.rstrip('/')}/") for pattern in patterns)


def _protected_under(folder: Path) -> Iterator[str]:
    """``.git`` entries, ``*.pth`` and ``pyvenv.cfg`` under ``folder`` (links not followed),
    relative to it; past :data:`_WALK_LIMIT` entries, ``.git`` stands for what is unseen."""
    seen = 0
    for root, dirs, names in os.walk(folder):
        base = Path(root).relative_to(folder)
        for name in [*dirs, *names]:
            seen += 1
            if is_protected_name(name):
                yield str(base / name)
        dirs[:] = [d for d in dirs if d.lower() != GIT_ENTRY]
        if seen > _WALK_LIMIT:
            yield GIT_ENTRY
            return


#: find tests after which the start folder itself is (almost surely) not among the files.
_FIND_FILTERS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
                           "-regex", "-iregex", "-mindepth", "-newer", "-mtime", "-mmin",
                           "-size", "-empty", "-perm", "-links", "-lname", "-ilname"})  # fmt: skip


def _found_name(tests: list[Word]) -> str | None:
    """What a file find gives is judged as, below its start folder: the ``-name`` pattern
    when there is one (``*.pth`` is then refused to writers like a written ``*.pth``),
    ``found`` after another filter, ``None`` (the start folder itself) without one."""
    texts = [w.text or "" for w in tests]
    names = [
        texts[i + 1] for i, t in enumerate(texts) if t in ("-name", "-iname") and i + 1 < len(texts)
    ]
    if len(names) == 1 and "/" not in names[0]:
        return names[0]
    if set(texts) & _FIND_FILTERS:
        return "found"
    return None


def _with_found(word: Word, start: str, found: str | None) -> Word:
    """``{}`` in a word of a ``-exec`` command stands for the files find gives."""
    if word.text is None or "{}" not in word.text:
        return word
    place = start if found is None else f"{start.rstrip('/') or '/'}/{found}"
    text = word.text.replace("{}", place)
    return Word(word.raw, text, plain=False, glob=found is not None and _is_glob(found))


def _is_glob(text: str) -> bool:
    return any(char in text for char in "*?[")


_TAR_PROGRAM_OPTIONS = (
    "--to-command", "--checkpoint-action", "--use-compress-program", "--rsh-command",
    "--info-script", "--new-volume-script", "--rmt-command", "--absolute-names", "-I", "-F",
    "-P",
)  # fmt: skip


def _tar(judge: Judge, program: str, args: list[Word]) -> None:
    for position, word in enumerate(args):
        text = word.text or ""
        if text.startswith(_TAR_PROGRAM_OPTIONS) or (
            position == 0 and not text.startswith("-") and set(text) & set("IFP")
        ):
            raise Denied(
                f"tar {text} runs a program or writes outside the project; use plain "
                "tar -czf/-xzf with project paths"
            )
        if ":" in text and not text.startswith("-"):
            raise Denied(f"tar would read {text} from another host; archives stay local")
    check_paths(judge, args[1:] if args and not (args[0].text or "-").startswith("-") else args,
                write=True)  # fmt: skip


RULES: dict[str, Rule] = {
    **dict.fromkeys(READ_PROGRAMS, _read),
    **dict.fromkeys(WRITE_PROGRAMS, _write),
    "sort": _sort,
    "rm": _rm,
    "dd": _dd,
    "chmod": _chmod,
    "ln": _ln,
    "find": _find,
    "tar": _tar,
}

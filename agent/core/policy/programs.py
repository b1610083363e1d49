"""The allowlist by program: which programs the model may run, and each one's rules.

A program is found by its name (``ls``), a system path (``/usr/bin/ls``) or a project
path (``.venv/bin/python``, ``./scripts/check.sh``). Its rules decide; a program with no
rules is denied, with a reason by category (network client, launcher, editor…).

* Reading and text programs: every path argument stays inside the project.
* Writing programs (``rm``, ``cp``, ``mv``, ``tee``…): their paths also stay out of
  ``.git/`` and ``.claude-agent/``; ``rm -r`` of the project root or of everything in it,
  ``chmod -R`` and set-id modes are denied.
* The project's own executables run (a coding agent must run the code it writes);
  the OS sandbox, not this policy, contains what that code does.
* Wrappers (``env``, ``timeout``, ``nice``, ``time``, ``command``, ``stdbuf``) are looked
  through: the command they run is judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agent.core.policy import git, interpreters, tools
from agent.core.policy.context import Denied
from agent.core.policy.paths import HARNESS_FOLDERS
from agent.core.policy.syntax import Word

if TYPE_CHECKING:
    from agent.core.policy.judge import Judge

Rule = Callable[["Judge", str, list[Word]], None]

_PROGRAM_NAME = re.compile(r"[A-Za-z0-9_.+\-/:\[]+")
_SYSTEM_BIN = frozenset(
    Path(p) for p in ("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin")
)

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

NETWORK = frozenset(
    {
        "curl", "wget", "nc", "ncat", "netcat", "socat", "telnet", "ssh", "scp", "sftp",
        "rsync", "ftp", "tftp", "lftp", "aria2c", "http", "https", "httpie", "xh", "lynx",
        "w3m", "links", "elinks", "dig", "nslookup", "host", "ping", "ping6", "traceroute",
        "tracepath", "openssl", "whois", "nmap", "mail", "mailx", "sendmail", "mutt",
        "smbclient", "rclone", "s3cmd", "aws", "gsutil", "gcloud", "az", "kubectl", "docker",
        "podman", "ssh-keyscan", "redis-cli", "mysql", "psql", "mongo", "mongosh", "sqlcmd",
        "ssh-agent", "ssh-add", "gh", "glab", "hub", "fetch", "axel", "busctl",
    }
)  # fmt: skip


def _names(text: str) -> frozenset[str]:
    """A set of program names written as one string (long lists stay readable)."""
    return frozenset(text.split())


_CATEGORIES: dict[str, tuple[frozenset[str], str]] = {
    "launcher": (
        _names(
            "xargs parallel watch script expect flock strace ltrace gdb lldb valgrind "
            "taskset chrt ionice cpulimit at batch crontab systemd-run start-stop-daemon "
            "screen tmux builtin exec trap enable alias fc coproc nix-shell busybox toybox "
            "zsh fish csh tcsh sshpass firejail bwrap pnpx bunx uvx pipx run-parts "
            "eatmydata faketime proot unbuffer rlwrap caller dbus-send msfconsole hash shopt "
        ),
        "{p} runs other programs in a way the harness cannot check; run the command "
        "directly instead",
    ),
    "escalation": (
        _names(
            "sudo su doas pkexec chroot unshare nsenter runuser setpriv capsh sg newgrp "
            "setcap chown chgrp chattr "
        ),
        "{p} changes users, owners or namespaces; the model's commands run as they are",
    ),
    "interactive": (
        _names(
            "vi vim nvim view emacs nano pico ed ex less more most man info top htop irb "
            "ipython bpython jshell sqlite3 mc ranger pry ghci julia R "
        ),
        "{p} is interactive (and can start a shell); use the Read, Edit and Write tools "
        "or non-interactive commands",
    ),
    "system": (
        _names(
            "mount umount modprobe insmod rmmod mkfs fdisk parted shred wipefs shutdown "
            "reboot halt poweroff init telinit useradd userdel usermod passwd chpasswd "
            "visudo iptables ip6tables nft ip ifconfig route sysctl systemctl service apt "
            "apt-get aptitude dpkg rpm yum dnf apk brew snap pacman zypper gem cpan cpanm "
            "composer conda mamba mknod mkswap swapon losetup hostname hwclock timedatectl "
            "kill pkill killall xkill renice update-alternatives ldconfig "
        ),
        "{p} changes the machine or its processes, not the project; it is not allowed",
    ),
}


def judge_program(judge: Judge, words: list[Word]) -> None:
    """Judge one simple command: its program by name or path, then that program's rules."""
    name = words[0]
    if name.text is None:
        raise Denied(
            f"the program to run ({name.raw}) comes from a variable or substitution; "
            "write the program name out"
        )
    if not name.plain or not _PROGRAM_NAME.fullmatch(name.text):
        raise Denied(
            f"write the program name {name.raw!r} plainly, without quotes, escapes or "
            "unusual characters"
        )
    program, in_project = _locate(judge, name.text)
    args = words[1:]
    texts = [w.text for w in words]
    for preset in judge.context.preset_commands:
        if tuple(texts[: len(preset)]) == preset:
            check_paths(judge, words[len(preset) :], write=True)
            return
    if name.text in judge.functions:
        return  # its body was judged where it was defined
    if program in judge.context.settings.extra_programs:
        check_paths(judge, args, write=True)
        return
    rule = rule_for(program)
    if rule is not None:
        rule(judge, program, args)
        return
    if in_project:
        check_paths(judge, args, write=True)  # the project's own script or executable
        return
    raise Denied(denial_for(program))


def rule_for(program: str) -> Rule | None:
    """The rules of ``program``, or ``None`` when it is not on the list."""
    if interpreters.is_python(program):
        return interpreters.python
    return RULES.get(program)


def denial_for(program: str) -> str:
    """Why a program without rules is denied, by its category."""
    if program in NETWORK:
        return (
            f"{program} is a network client; the model's commands have no network access "
            "(if the task needs something from the network, say so in your handoff)"
        )
    if program.startswith(("mkfs.", "fsck.")):
        return _CATEGORIES["system"][1].format(p=program)
    for programs, reason in _CATEGORIES.values():
        if program in programs:
            return reason.format(p=program)
    return (
        f"{program} is not on the harness's list of programs the model may run; use the "
        "project's own tools, or ask for it in your handoff"
    )


def _locate(judge: Judge, text: str) -> tuple[str, bool]:
    """The program's name, and whether it is a file of the project."""
    if "/" not in text:
        return text, False
    candidate = Path(text)
    for cwd in sorted(judge.cwds):
        folder = (cwd / candidate).parent.resolve()
        if folder.is_relative_to(judge.root):
            first = folder.relative_to(judge.root).parts[:1]
            if first and first[0] in HARNESS_FOLDERS:
                raise Denied(f"{text} is inside {first[0]}/, which belongs to the harness")
            continue
        if folder not in _SYSTEM_BIN:
            raise Denied(f"{text} is outside the project; run programs by name or from the project")
        return candidate.name, False
    return candidate.name, True


# --- generic argument checks ------------------------------------------------------------


def looks_like_path(value: str) -> bool:
    """An option value that may name a place (``--out=/x``, ``--junitxml=.git/x``)."""
    return value.startswith(("/", "~", ".")) or "/" in value


def check_paths(
    judge: Judge, args: list[Word], *, write: bool = False, skip_positionals: int = 0
) -> None:
    """Every positional argument is a path; option values that look like paths are too.

    ``write``: the program may write there (tools, scripts), so the harness's folders are
    off limits as well.
    """
    for word in args:
        text = word.text
        if text is None:
            judge.check_path(word, write=write)
            continue
        if text.startswith("-") and text != "-":
            value = text.partition("=")[2] if "=" in text else ""
            if value and looks_like_path(value):
                judge.check_path(Word(word.raw, value), write=write)
            continue
        if skip_positionals > 0:
            skip_positionals -= 1
            continue
        judge.check_path(word, write=write)


def background(judge: Judge, what: str) -> None:
    """Deny starting a process that outlives the command, unless the project allows it."""
    if not judge.context.settings.allow_background:
        raise Denied(
            f"{what} starts a process that keeps running in the background; run the "
            "command in the foreground (with a timeout if it may hang)"
        )


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
    from agent.core.policy.judge import check_variable_name

    for word in words:
        if word.text is None:
            raise Denied(f"the variable name {word.raw} must be written out")
        check_variable_name(word.text.partition("[")[0])


def _reads_variables(judge: Judge, program: str, args: list[Word]) -> None:
    """read, mapfile, readarray, getopts: the variables they set are checked by name."""
    names = [w for w in args if w.text is None or w.text.isidentifier()]
    _check_names(names)


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
    check_paths(judge, args, write=True)
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
    check_paths(judge, args, write=True)
    positionals = [w for w in args if not (w.text or "-").startswith("-")]
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


def _find(judge: Judge, program: str, args: list[Word]) -> None:
    index = 0
    while index < len(args) and not (args[index].text or "-").startswith(("-", "(", "!", ")")):
        judge.check_path(args[index], write=False)
        index += 1
    expression = args[index:]
    for position, word in enumerate(expression):
        text = word.text
        if text is None:
            raise Denied(
                f"the find argument {word.raw} is built from a variable or substitution; "
                "write it out"
            )
        if text in ("-exec", "-execdir", "-ok", "-okdir"):
            raise Denied(
                f"find {text} runs programs the harness cannot check; list the files with "
                "find, then run the command on them by name"
            )
        if text in ("-fprint", "-fprint0", "-fprintf", "-fls") and position + 1 < len(expression):
            judge.check_path(expression[position + 1], write=True)
        if text == "-files0-from" and position + 1 < len(expression):
            judge.check_path(expression[position + 1], write=False)


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
    from agent.core.policy.judge import check_variable_name

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
            check_variable_name(text.partition("=")[0])
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
    raise Denied(
        f"{program} runs a file's commands in this shell without the harness seeing them; "
        "the project's .venv/bin is already first on PATH, so run python, pytest and the "
        "project's tools directly"
    )


def _disown(judge: Judge, program: str, args: list[Word]) -> None:
    background(judge, program)


RULES: dict[str, Rule] = {
    **dict.fromkeys(TEXT_PROGRAMS | {"date"}, _text),
    **dict.fromkeys(READ_PROGRAMS, _read),
    **dict.fromkeys(WRITE_PROGRAMS, _write),
    **dict.fromkeys(("read", "mapfile", "readarray", "getopts"), _reads_variables),
    "sort": _sort,
    "rm": _rm,
    "dd": _dd,
    "chmod": _chmod,
    "ln": _ln,
    "cd": _cd,
    "pushd": _cd,
    "popd": _popd,
    "find": _find,
    "tar": _tar,
    "env": _env,
    "command": _command,
    "eval": _eval,
    "source": _source,
    ".": _source,
    "nohup": _background_wrapper,
    "setsid": _background_wrapper,
    "disown": _disown,
    "bg": _disown,
    "fg": _disown,
    "timeout": _wrapper(
        _skip_options(frozenset({"-s", "--signal", "-k", "--kill-after"}), positional_values=1)
    ),
    "nice": _wrapper(_skip_options(frozenset({"-n", "--adjustment"}))),
    "time": _wrapper(_skip_options(frozenset())),
    "stdbuf": _wrapper(_skip_options(frozenset({"-i", "-o", "-e"}))),
    **git.RULES,
    **interpreters.RULES,
    **tools.RULES,
}

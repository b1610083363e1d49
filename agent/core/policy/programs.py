"""The allowlist by program: which programs the model may run, and each one's rules.

A program is found by its name (``ls``), a system path (``/usr/bin/ls``) or a project
path (``.venv/bin/python``, ``./scripts/check.sh``). Its rules decide; a program with no
rules is denied, with a reason by category (network client, launcher, editor…).

The rules live by kind: :mod:`.shell` (builtins and wrappers), :mod:`.files` (reading
and writing programs), :mod:`.git`, :mod:`.interpreters`, :mod:`.tools` and
:mod:`.processes` (sandboxed sessions only). The
project's own executables run (a coding agent must run the code it writes), with their
path arguments checked; the OS sandbox, not this policy, contains what that code does.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent.core.policy import files, git, interpreters, processes, shell, tools
from agent.core.policy.arguments import Rule, check_paths
from agent.core.policy.context import Denied
from agent.core.policy.judging import Judge
from agent.core.policy.protected import HARNESS_FOLDERS
from agent.core.policy.syntax import Word

_PROGRAM_NAME = re.compile(r"[A-Za-z0-9_.+\-/:\[]+")
_SYSTEM_BIN = frozenset(
    Path(p) for p in ("/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin")
)

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
            "parallel watch script expect flock strace ltrace gdb lldb valgrind "
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
            "composer conda mamba mknod mkswap swapon losetup hwclock timedatectl "
            "killall xkill renice update-alternatives ldconfig "
        ),
        "{p} changes the machine or its processes, not the project; it is not allowed",
    ),
}


def judge_program(judge: Judge, words: list[Word]) -> None:
    """Judge one simple command: its program by name or path, then that program's rules.

    The project's test and quality commands (the harness's own, decided at
    project_verification) are matched first, before the program is located: the harness
    resolved them and runs them itself, and where their interpreter lies is the layout's
    business (a user's Python outside the project, ``/root/.pyenv/…/python3.11``; a slot's
    ``.venv`` link pointing at the project's environment outside the worktree; the demo's
    ``.venv`` linked into the environment cache). Locating first refused them all as
    "outside the project", and an honest model could never run the tests.
    """
    if _preset_matched(judge, words):
        return
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
    if name.text in judge.functions:
        return  # its body was judged where it was defined
    if program in judge.context.settings.extra_programs:
        check_paths(judge, args, write=True)
        return
    rule = rule_for(program)
    if rule is not None:
        rule(judge, program, args)
        return
    if in_project or (judge.context.sandboxed and _venv_tool(judge, program)):
        tools.project_tool(judge, program, args)  # the project's own script or executable
        return
    raise Denied(denial_for(program))


def _preset_matched(judge: Judge, words: list[Word]) -> bool:
    """Whether ``words`` start with one of the project's test or quality commands as
    written (each word's value, quotes removed: ``'/opt/py 3/bin/python' -m pytest`` is
    the command the harness quoted); the extra arguments are held to the path rules. A
    word built from a variable or substitution has no value and never matches."""
    texts = [w.text for w in words]
    for preset in judge.context.preset_commands:
        if len(texts) >= len(preset) and tuple(texts[: len(preset)]) == preset:
            check_paths(judge, words[len(preset) :], write=True)
            return True
    return False


#: Where a sandboxed session's ``PATH`` finds the project's own tools first.
_PROJECT_BIN = (".venv", "bin")


def _venv_tool(judge: Judge, program: str) -> bool:
    """``pre-commit``, ``uvicorn``: a name the model's ``PATH`` finds in the project's
    ``.venv/bin`` runs that project file, as ``.venv/bin/pre-commit`` does. Names the
    policy refuses by kind (network clients, launchers…) stay refused wherever they are."""
    if "/" in program or program in NETWORK:
        return False
    if any(program in names for names, _ in _CATEGORIES.values()):
        return False
    tool = judge.root.joinpath(*_PROJECT_BIN, program)
    return tool.is_file() and tool.resolve().is_relative_to(judge.root)


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


RULES: dict[str, Rule] = {
    **shell.RULES,
    **files.RULES,
    **git.RULES,
    **interpreters.RULES,
    **tools.RULES,
    **processes.RULES,
}

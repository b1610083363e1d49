"""Path arguments and redirection targets must stay inside the project.

A path is resolved the way the kernel would open it (symlinks followed) against every
folder the command may be in, and a glob is expanded the way bash would, so
``src/*`` with a symlink to ``/etc`` inside is caught. Writes also stay out of
``.git/`` (hooks, config, refs) and the harness's ``.claude-agent/`` workspaces, and out
of the files the harness reads anywhere in the project (:mod:`.protected`: nested
``.git``, ``*.pth``, ``pyvenv.cfg``), checked both as written and as resolved.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent.core.policy.context import Denied
from agent.core.policy.protected import refusal_at
from agent.core.policy.syntax import Word
from agent.sandbox.plan import SYSTEM_DIRS

#: Devices any command may read or write.
SAFE_DEVICES = frozenset(
    {"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/urandom",
     "/dev/random"}
)  # fmt: skip
_NETWORK_DEVICES = ("/dev/tcp/", "/dev/udp/")
#: Folder entries a glob may make the judge look at before it is denied as too broad.
GLOB_BUDGET = 20_000
#: The system folders the sandbox shows, read-only and as the host has them: the
#: programs and libraries a session runs anyway.
SANDBOX_SYSTEM_FOLDERS = tuple(Path(p) for p in SYSTEM_DIRS)
#: System files that hold credentials where the harness runs as root (password hashes,
#: host keys, private TLS keys): still refused, a speed bump for a model that reads them,
#: since a project script could read them too.
_SYSTEM_SECRETS = tuple(
    Path(p) for p in ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
                      "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private",
                      "/etc/security/opasswd")
)  # fmt: skip


@dataclass
class WalkBudget:
    """Folder entries the path checks of ONE command may still look at, all globs together.

    :data:`GLOB_BUDGET` bounds one pattern; a loop over many values (each a pattern, and
    each loop body judged twice) multiplied it: 200 words of ``wc -l "$x"/*/*.py`` over
    16,000 files ran for minutes in the agent. One budget per command bounds the whole.
    """

    left: int = 5 * GLOB_BUDGET

    def spend(self, entries: int) -> None:
        self.left -= entries
        if self.left < 0:
            raise Denied(
                "this command's patterns match too many paths to check; name the files "
                "or folders, or use fewer wildcards and loop values"
            )


def check_path(
    word: Word,
    root: Path,
    cwds: Iterable[Path],
    *,
    write: bool,
    what: str = "path",
    removing: bool = False,
    system_reads: bool = False,
    budget: WalkBudget | None = None,
) -> None:
    """Raise :class:`Denied` unless ``word`` names a place inside ``root``.

    ``system_reads``: reading the system folders the sandbox shows read-only
    (:data:`SANDBOX_SYSTEM_FOLDERS`) is allowed too (a sandboxed session).

    ``what`` names the argument in the message (``path``, ``redirection target``…).
    ``budget``: what the whole command may still spend on expanding patterns.
    ``removing``: the write only deletes (``rm``), which a nested ``.git`` or a ``.pth``
    file may suffer (deleting one is how a nested repository becomes a plain folder);
    the harness's own folders stay off limits.
    """
    if word.fd_path:
        return
    if word.text is None:
        raise Denied(
            f"the {what} {word.raw} is built from a variable or substitution the harness "
            "cannot check; write the path out literally"
        )
    text = word.text
    if text in SAFE_DEVICES:
        return
    if text.startswith(_NETWORK_DEVICES):
        raise Denied(
            f"{text} opens a network connection; the model's commands have no network access"
        )
    if word.braces:
        raise Denied(
            f"the {what} {word.raw} uses a brace expansion; write each path out separately"
        )
    for cwd in cwds:
        for candidate in _candidates(text, cwd, word.glob, budget or WalkBudget()):
            resolved = (cwd / candidate).resolve()
            if system_reads and not write and _in_system_folder(resolved):
                continue
            if not resolved.is_relative_to(root):
                raise Denied(
                    f"the {what} {word.raw} is outside the project {root}; "
                    "work with files inside the project only"
                )
            if write:
                reason = refusal_at(
                    root, cwd / candidate, resolved, word.raw, what, removing=removing
                )
                if reason:
                    raise Denied(reason)


def _in_system_folder(resolved: Path) -> bool:
    """A place in the system folders the sandbox shows, but for the credentials there."""
    if any(resolved.is_relative_to(secret) for secret in _SYSTEM_SECRETS):
        return False
    return any(resolved.is_relative_to(folder) for folder in SANDBOX_SYSTEM_FOLDERS)


def resolve_in(text: str, cwd: Path) -> Path:
    """``text`` as a folder reached from ``cwd`` (for ``cd``)."""
    return (cwd / text).resolve()


def _candidates(text: str, cwd: Path, is_glob: bool, budget: WalkBudget) -> list[str]:
    """The names bash would pass: the glob's matches, or the text itself."""
    if not is_glob:
        return [text]
    head = Path(text).parts
    if any(
        part.startswith(".") and (fnmatch.fnmatchcase("..", part) or fnmatch.fnmatchcase(".", part))
        for part in head
        if set(part) & set("*?[")
    ):
        raise Denied(
            f"the pattern {text} could match '..'; name the folders without a hidden-file glob"
        )
    work = _glob_work(text, cwd)
    if work > GLOB_BUDGET:
        raise Denied(
            f"the pattern {text} matches too many paths to check; name the files or "
            "folders, or use fewer wildcards"
        )
    budget.spend(work)
    # glob.glob, not Path.glob: the pattern may be absolute (``/etc/*``).
    matches = glob.glob(text, root_dir=cwd)  # noqa: PTH207
    budget.spend(len(matches))  # each is resolved and checked below
    return [text, *matches]


def _glob_work(text: str, cwd: Path) -> int:
    """How many folder entries expanding ``text`` looks at, counted up to just past
    :data:`GLOB_BUDGET` (then the count stops: the walk itself is bounded).

    Why: the judge runs in the agent process, and links the model made multiply a
    pattern's matches: ten links to ``.`` and ``*/*/*/*/*/*`` are 10^6 paths (12 s,
    measured), two more levels 10^8 and every match in memory. Over-counts (hidden
    entries too), never under-counts, what :func:`glob.glob` visits.
    """
    folders = [Path("/") if text.startswith("/") else cwd]
    parts = [part for part in text.split("/") if part]
    seen = 0
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        found: list[Path] = []
        for folder in folders:
            if not glob.has_magic(part):
                found.append(folder / part)
                seen += 1
                continue
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > GLOB_BUDGET:
                            return seen
                        if fnmatch.fnmatchcase(entry.name, part) and (last or _is_folder(entry)):
                            found.append(folder / entry.name)
            except OSError:
                continue
        folders = found
        if seen > GLOB_BUDGET:
            break
    return seen


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows links, as glob does
    except OSError:
        return False

"""Git through its command line: the one place the harness runs git.

Every failure becomes a :class:`GitError` carrying git's own message. Every call
goes through :mod:`common.workspace.git_guard` (the repository's hooks, fsmonitor,
drivers, pagers, editors and helpers never run as the harness, and git never
descends into a nested repository) and, where bubblewrap runs, through
:mod:`common.workspace.git_jail` (a program that slipped through anyway sees no
``HARNESS_HOME``, no home, no socket and no network).

Output is read as bytes: paths are the model's and may hold any byte; text read
with universal newlines would turn a ``\r`` into a ``\n``. :func:`git_bytes` gives
the bytes; :func:`git` decodes them, never failing on a byte that is not UTF-8.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from common import safe_read
from common.errors import GitError
from common.paths import WORKSPACE_ROOT_NAME
from common.workspace import git_guard, git_jail, gitdirs, pathnames


def git_bytes(
    repo: Path,
    *args: str,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
    writable: Sequence[Path] = (),
    read_only: Sequence[Path] = (),
) -> bytes:
    """Run ``git -C repo ARGS`` (hardened, jailed) and return its stdout as bytes.

    ``args`` may start with the caller's own ``-c`` settings (an identity); the
    guard's overrides come first, so a caller cannot switch a guard off by accident
    but a deliberate ``-c`` of the harness still applies. ``env`` adds variables
    (``GIT_INDEX_FILE``); ``writable`` and ``read_only`` are folders besides ``repo``
    the command needs inside its jail.
    """
    repo = repo.absolute()  # the jail binds it, and git runs in it, at this one path
    options, rest = _split_options(args)
    binary, _exec_path = git_jail.git_binary()
    command = [
        str(binary),
        "-C",
        str(repo),
        *git_guard.override_args(repo, rest[0] if rest else ""),
        *options,
        *git_guard.command_args(rest),
    ]
    workspace = repo / WORKSPACE_ROOT_NAME
    # Only the harness's own folder is hidden: a link of that name (a session can make
    # one in a worktree) would make bwrap refuse every git there; its target is outside
    # the jail anyway.
    harness_own = workspace.is_dir() and not workspace.is_symlink()
    jail = git_jail.Jail(
        repo,
        (*writable, *_linked_git_dirs(repo)),
        tuple(read_only),
        hidden=(workspace,) if harness_own else (),
    )
    safe = git_guard.safe_environ(None if env is None else {**os.environ, **env})
    command, run_env = git_jail.wrap(jail, command, safe)
    try:
        done = subprocess.run(command, input=stdin, capture_output=True, check=False, env=run_env)
    except OSError as e:
        raise GitError(f"cannot run git: {e.strerror}") from e
    if check and done.returncode != 0:
        text = (done.stderr or done.stdout).decode(errors="replace")
        message = text.strip().splitlines()
        detail = message[-1] if message else f"exit status {done.returncode}"
        shown = " ".join(pathnames.shown(arg.encode(errors="surrogateescape")) for arg in args)
        raise GitError(f"git {shown}: {pathnames.shown(detail.encode())}")
    return done.stdout


def git(
    repo: Path,
    *args: str,
    check: bool = True,
    env: Mapping[str, str] | None = None,
    writable: Sequence[Path] = (),
    read_only: Sequence[Path] = (),
) -> str:
    """Run ``git -C repo ARGS`` (see :func:`git_bytes`) and return stdout as text,
    without the trailing newline; a byte that is not UTF-8 reads as U+FFFD."""
    out = git_bytes(repo, *args, check=check, env=env, writable=writable, read_only=read_only)
    return out.decode("utf-8", errors="replace").rstrip("\n")


def _linked_git_dirs(repo: Path) -> tuple[Path, ...]:
    """The git folders of ``repo`` outside it, when ``.git`` is not a folder of its own
    (a linked worktree or a submodule's ``.git`` file): the jail binds them too."""
    folders = gitdirs.git_folders(repo)
    return folders.outside(repo) if folders is not None else ()


def _split_options(args: tuple[str, ...]) -> tuple[list[str], tuple[str, ...]]:
    """The caller's leading ``-c KEY=VALUE`` pairs, and the subcommand with its arguments."""
    index = 0
    while index + 1 < len(args) and args[index] == "-c":
        index += 2
    return list(args[:index]), args[index:]


def is_repository_root(path: Path) -> bool:
    """Whether ``path`` is the top folder of a git work tree."""
    if not path.is_dir():
        return False
    try:
        top = git(path, "rev-parse", "--show-toplevel")
    except GitError:
        return False
    return Path(top).resolve() == path.resolve()


def branch_exists(repo: Path, branch: str) -> bool:
    """Whether a local branch of that name exists."""
    return git(repo, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False) != ""


def current_branch(repo: Path) -> str:
    """The checked-out branch (``HEAD`` when detached)."""
    return git(repo, "rev-parse", "--abbrev-ref", "HEAD")


def head_commit(repo: Path) -> str:
    """The full SHA of ``HEAD``."""
    return git(repo, "rev-parse", "HEAD")


def branches(repo: Path) -> list[str]:
    """Local branch names, sorted."""
    out = git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads")
    return sorted(line for line in out.splitlines() if line)


def changed_paths(repo: Path) -> list[bytes]:
    """Paths with uncommitted changes (staged, unstaged or untracked), repo-relative, as
    git's bytes. An untracked nested repository is one entry ending in ``/`` (git lists
    it whole, never its files); a nested repository git already tracks is not listed
    (its own changes are never looked at)."""
    return _status_paths(repo, "all")


def _status_paths(repo: Path, untracked: str) -> list[bytes]:
    out = git_bytes(repo, "status", "--porcelain=v1", "-z", f"--untracked-files={untracked}")
    paths: list[bytes] = []
    entries = out.split(b"\0")
    index = 0
    while index < len(entries):
        entry = entries[index]
        index += 1
        if not entry:
            continue
        status, path = entry[:2], entry[3:]
        paths.append(path)
        if status[:1] in (b"R", b"C"):
            source = entries[index]  # the rename's or copy's source path follows
            index += 1
            if status[:1] == b"R":
                paths.append(source)  # a rename also deletes its source
    return paths


def changed_files(repo: Path) -> list[str]:
    """:func:`changed_paths` as text the harness can store: each path itself, or its
    escaped form when the harness would never commit it (see :func:`pathnames.key`)."""
    return [pathnames.key(path) for path in changed_paths(repo)]


def uncommitted_for_people(repo: Path) -> list[str]:
    """What is uncommitted, as a person counts it: an untracked folder is one entry
    (``.venv/``), never each of its files.

    Why: a project's untracked ``.venv/`` was told as "1270 uncommitted change(s)".
    Only for showing: what a commit may take is :func:`changed_paths`, file by file.
    """
    return [pathnames.key(path) for path in _status_paths(repo, "normal")]


def nul_list(paths: Sequence[bytes]) -> bytes:
    """Paths for ``--pathspec-from-file=- --pathspec-file-nul``: any byte but NUL is kept."""
    return b"".join(path + b"\0" for path in paths)


def split_nul(out: bytes) -> list[bytes]:
    """The entries of a ``-z`` listing (``--name-only -z``, ``ls-files -z``)."""
    return [entry for entry in out.split(b"\0") if entry]


MAX_EXCLUDE_BYTES = 1 << 20
"""The largest ``.git/info/exclude`` the harness reads before adding a line to it."""


def exclude_path(repo: Path, pattern: str) -> None:
    """Add ``pattern`` to ``.git/info/exclude`` once, so it is never committed.

    Raises:
        GitError: the file is not a regular file the harness can read (one line).
    """
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    exclude = git_dir / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    try:
        raw = safe_read.read_if_present(exclude, MAX_EXCLUDE_BYTES)
    except OSError as e:
        raise GitError(f"cannot add {pattern} to .git/info/exclude: {e}") from e
    existing = raw.decode("utf-8", errors="replace") if raw is not None else ""
    if pattern not in existing.splitlines():
        prefix = "" if existing.endswith("\n") or not existing else "\n"
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(exclude, flags, 0o644)
        with os.fdopen(fd, "a") as handle:
            handle.write(f"{prefix}{pattern}\n")


def gitlinks(repo: Path) -> list[bytes]:
    """Paths the index holds as nested repositories (mode 160000, "gitlinks")."""
    out = git_bytes(repo, "ls-files", "--stage", "-z")
    found: list[bytes] = []
    for entry in split_nul(out):
        meta, _, path = entry.partition(b"\t")
        if meta.startswith(b"160000 "):
            found.append(path)
    return found


BIG_FILE_BYTES = 50 * 1024 * 1024
"""Above this a file is never committed nor hashed for the fingerprint: ``truncate -s
10G x`` costs nothing to make, and git reads and deflates every byte of it at each
commit and each gate (measured: 11.5 s for 2 GB, per call), then the push is refused by
the forge's file size limit at every resume."""


def too_big(repo: Path, raw: bytes) -> bool:
    """Whether the changed path ``raw`` is a regular file above :data:`BIG_FILE_BYTES`
    (``lstat``: a link is its own small self, never followed)."""
    try:
        info = (repo / os.fsdecode(raw)).lstat()
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size > BIG_FILE_BYTES


def worktree_fingerprint(repo: Path) -> str:
    """A tree SHA of the work tree as it is now: committed, changed and new files alike.

    Computed in a copy of the index (``GIT_INDEX_FILE``), so the real index is not
    touched. Ignored files do not count, nor do nested repositories: ``git add`` asks a
    tracked one whether it is dirty (a ``git status`` *inside* it, under its own config),
    so each is excluded by name, and so is a file too big to commit (:func:`too_big`).
    The same content gives the same SHA whether or not it was committed since, which is
    what lets a test run be reused.
    """
    git_dir = Path(git(repo, "rev-parse", "--absolute-git-dir"))
    changed = changed_paths(repo)
    nested = [*gitlinks(repo), *(p for p in changed if p.endswith(b"/"))]
    nested += [path for path in changed if not path.endswith(b"/") and too_big(repo, path)]
    pathspec = [b"."] + [b":(exclude,literal)" + path.rstrip(b"/") for path in nested]
    with tempfile.TemporaryDirectory(prefix="harness-index-") as scratch:
        index = Path(scratch) / "index"
        if (git_dir / "index").exists():
            # Keeps git's stat cache (fast) and the index's time with it: a copy stamped
            # now would hide a same-size change made in the index's clock tick from git's
            # racy-entry check, and the fingerprint would name the committed content.
            shutil.copy2(git_dir / "index", index)
        env = {"GIT_INDEX_FILE": str(index)}
        # A file the harness cannot read (the model's ``chmod 000``) is left out of the
        # fingerprint, never a failure: git adds the rest and exits non-zero.
        git_bytes(
            repo,
            "add",
            "--all",
            "--ignore-errors",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            check=False,
            env=env,
            stdin=nul_list(pathspec),
            writable=(Path(scratch),),
        )
        return git(repo, "write-tree", env=env, writable=(Path(scratch),))

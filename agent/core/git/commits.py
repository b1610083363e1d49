"""Commits made by the harness: only the session's files, in the structured format.

``feat(#N): <title>`` with a body and the Files / Tests / Issue lines, so that
git history alone tells a new session (or a reviewer) what happened.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from common import safe_read
from common.errors import GitError
from common.paths import WORKSPACE_ROOT_NAME
from common.untrusted_text import printable, printable_line
from common.workspace import git, git_guard, pathnames

NESTED_REASON = "a nested git repository"
GITMODULES_REASON = "submodule configuration: the harness never commits submodules"
UNREADABLE_REASON = "the harness cannot read it (its permissions); make it readable to commit it"
TOO_BIG_REASON = (
    f"larger than {git.BIG_FILE_BYTES // (1024 * 1024)} MB: the harness commits no file this big"
)


@dataclass(frozen=True)
class KeptOut:
    """A changed path the harness will not commit, and why (shown escaped, one line)."""

    path: str
    reason: str

    def line(self) -> str:
        return f"{self.path} ({self.reason})"


@dataclass(frozen=True)
class SessionChanges:
    """What a session changed: the files to commit, and the paths kept out of the commit."""

    files: list[str]
    kept_out: list[KeptOut] = field(default_factory=list)


def kept_out_reason(project: Path, raw: bytes) -> str | None:
    """Why the harness never commits the changed path ``raw`` (git's bytes), or ``None``.

    A nested repository (a folder holding a ``.git`` folder or file, or anything inside
    one) would become a gitlink: git would then look into it, under its own config, at
    every later status; its files are not the project's either. ``.gitmodules`` only
    configures submodules (an ``update = !cmd`` in it even makes git refuse to show
    history that holds it), and the harness commits none. A name that is not
    plain printable UTF-8 cannot be committed and shown exactly (:mod:`pathnames`). A
    file the harness cannot read would fail the whole commit; one too big
    (:func:`git.too_big`) would cost every commit and gate a read of it and fail the push.
    """
    nested = nested_repository(project, raw)
    if nested is not None:
        return f"{NESTED_REASON} ({pathnames.shown(nested)})"
    if raw == b".gitmodules":
        return GITMODULES_REASON
    refused = pathnames.refusal(raw)
    if refused is not None:
        return refused
    special = _special(project / os.fsdecode(raw))
    if special is not None:
        return f"{special}: git commits only files and links"
    if not _readable(project / os.fsdecode(raw)):
        return UNREADABLE_REASON
    if git.too_big(project, raw):
        return TOO_BIG_REASON
    return None


def _special(path: Path) -> str | None:
    """What ``path`` is when it is neither a file, a link nor a folder (a FIFO that
    replaced a tracked file: ``git add`` of it failed the commit, at every resume)."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode) or stat.S_ISDIR(mode):
        return None
    return safe_read.kind_of(mode)


def _readable(path: Path) -> bool:
    """Whether git, run as the harness's user, can read the file to commit it.

    A file the model made unreadable (``chmod 000``) would make ``git add`` fail the
    whole commit, again at every resume. A link is committed as a link (never read),
    and a path that is gone is a deletion.
    """
    if path.is_symlink() or not path.is_file():
        return True
    return os.access(path, os.R_OK)


def nested_repository(project: Path, raw: bytes) -> bytes | None:
    """The ``.git`` (folder or file) that makes ``raw`` part of a nested repository."""
    parts = raw.rstrip(b"/").split(b"/")
    if raw.endswith(b"/"):  # git lists an untracked nested repository whole
        return raw + b".git"
    for depth in range(len(parts), 0, -1):
        folder = b"/".join(parts[:depth])
        candidate = folder + b"/.git"
        if os.path.lexists(project / os.fsdecode(candidate)):
            return candidate
    return None


def session_changes(project: Path, touched: set[str], dirty_before: set[str]) -> SessionChanges:
    """The files this session changed: what the model wrote, plus what appeared since.

    A change the user had before the session (``dirty_before``, as
    :func:`git.changed_files` gives it) is never included unless the model itself wrote
    that file. A path the harness cannot commit (:func:`kept_out_reason`) is kept out
    and named, escaped.
    """
    now = {pathnames.key(raw): raw for raw in git.changed_paths(project)}
    appeared = set(now) - dirty_before
    written = {path for path in touched if path in now}
    files: list[str] = []
    kept_out: list[KeptOut] = []
    for path in sorted(appeared | written):
        if path.startswith(f"{WORKSPACE_ROOT_NAME}/"):
            continue
        reason = kept_out_reason(project, now[path])
        if reason is None:
            files.append(path)
        else:
            kept_out.append(KeptOut(pathnames.shown(now[path]), reason))
    return SessionChanges(files, kept_out)


def kept_out_line(kept_out: list[KeptOut]) -> str:
    """The one line that tells a session (and the log) what was not committed."""
    names = "; ".join(item.line() for item in kept_out)
    return (
        f"The harness kept {len(kept_out)} path(s) out of the commit: {names}. "
        "It never commits a nested git repository, a name with control, bidi or "
        "invisible characters, or a file git ignores; remove or rename them (or stop "
        "ignoring them) if they belong to the issue."
    )


def tests_line(files: list[str], new_files: set[str]) -> str:
    """``added`` / ``updated`` / ``none`` for the commit's Tests line."""
    test_files = [f for f in files if _is_test(f)]
    if any(f in new_files for f in test_files):
        return "added"
    return "updated" if test_files else "none"


SESSION_TRAILER = "Harness-Session"
"""The trailer that names the issue and session a commit belongs to (``3/2``): how a
resumed agent finds a commit it made but did not live to record."""


def message(
    kind: str,
    iid: int,
    title: str,
    body: str,
    files: list[str],
    tests: str,
    session: int | None = None,
) -> str:
    """The structured commit message of the seed (and the harness's session trailer).

    The title, body and tests line come from the model's words (its issue, its summary):
    escaped (:mod:`common.untrusted_text`), so ``git log`` in a person's terminal shows
    them inert, and the title cannot add lines of its own to the subject or trailers.
    """
    title, body, tests = printable_line(title), printable(body), printable_line(tests)
    subject = f"{kind}(#{iid}): {title}"
    trailer = f"\n{SESSION_TRAILER}: {iid}/{session}" if session is not None else ""
    return (
        f"{subject}\n\n{body.strip()}\n\n"
        f"Files: {len(files)} changed\nTests: {tests}\nIssue: #{iid} - {title}{trailer}\n"
    )


def find_session_commit(project: Path, since: str, iid: int, session: int) -> str | None:
    """The commit on ``HEAD`` after ``since`` that carries the trailer of this issue's
    session, if the harness made one (the newest wins)."""
    return commit_with_trailer(project, since, SESSION_TRAILER, f"{iid}/{session}")


def commit_with_trailer(project: Path, since: str, key: str, wanted: str) -> str | None:
    """The newest commit on ``HEAD`` after ``since`` whose ``key`` trailer is exactly
    ``wanted``: how a resumed agent finds a commit it made but did not live to record."""
    out = git.git(
        project,
        "log",
        f"--format=%H %(trailers:key={key},valueonly,separator=%x2C)",
        f"{since}..HEAD",
    )
    for line in out.splitlines():
        sha, _, value = line.partition(" ")
        if value.strip() == wanted:
            return sha
    return None


def commit(
    project: Path,
    files: list[str],
    text: str,
    *,
    allow_empty: bool = False,
    tested_tree: str | None = None,
) -> str:
    """Stage exactly ``files`` and commit only them; return the new SHA.

    Paths cross as bytes (``--pathspec-from-file`` with NUL ends, literal pathspecs:
    a name like ``*`` is that file, not every file). A listed path that is no longer
    there and unknown to git (a stale list from before a restart), or that the harness
    never commits (:func:`kept_out_reason`), is left out instead of failing the commit.
    With ``allow_empty`` and nothing left, the commit records a verdict with no change
    (work committed as ``wip`` earlier that the harness has now accepted); it never
    takes what else is staged. ``tested_tree``: the tree the gates ran on; the files
    are committed only as they are there (:func:`refuse_untested`).

    Raises:
        ValueError: nothing to commit and not ``allow_empty`` (git would take an empty
            pathspec as "everything").
        GitError: a file differs from the tested tree (nothing is committed).
    """
    identity = harness_identity(project)
    literal = {"GIT_LITERAL_PATHSPECS": "1"}
    wanted = [pathnames.encoded(f) for f in files]
    wanted = [raw for raw in wanted if kept_out_reason(project, raw) is None]
    known = set(git.split_nul(git.git_bytes(project, "ls-files", "-z")))
    # A path that is neither on disk nor in the index is a staged deletion (or stale).
    to_add = [raw for raw in wanted if os.path.lexists(project / os.fsdecode(raw)) or raw in known]
    if to_add:
        git.git_bytes(
            project,
            "add",
            "--all",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
            stdin=git.nul_list(to_add),
            env=literal,
        )
    staged = set(
        git.split_nul(git.git_bytes(project, "diff-index", "--cached", "--name-only", "-z", "HEAD"))
    )
    to_commit = [raw for raw in wanted if raw in staged]
    if tested_tree is not None:
        refuse_untested(project, tested_tree, wanted, committed=False)
    if not to_commit:
        if not allow_empty:
            raise ValueError("commit() needs at least one file with a change")
        _commit_with_message(project, [*identity, "commit", "--allow-empty", "--only"], text)
        return git.head_commit(project)
    _commit_with_message(
        project,
        [*identity, "commit", "--pathspec-from-file=-", "--pathspec-file-nul"],
        text,
        stdin=git.nul_list(to_commit),
        env=literal,
    )
    if tested_tree is not None:
        refuse_untested(project, tested_tree, to_commit, committed=True)
    return git.head_commit(project)


def _commit_with_message(
    project: Path,
    args: list[str],
    text: str,
    *,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> None:
    """``git ARGS --quiet --no-verify -F FILE``: the message goes by a file, never as one
    argument.

    Why: the message holds the model's summary. As a ``-m`` argument, one over Linux's
    per-argument cap (``MAX_ARG_STRLEN``, 128 KiB) made git fail to start ("Argument
    list too long"): the agent failed, and every resume replayed the same commit. A file
    has no such cap, and stdin is taken by the pathspec list. The file is the harness's
    own (a private temporary folder), shown read-only to the jailed git, and removed after.
    """
    folder = Path(tempfile.mkdtemp(prefix="harness-message-"))
    try:
        message_file = folder / "message"
        message_file.write_bytes(text.encode("utf-8", errors="replace"))
        git.git_bytes(
            project,
            *args,
            "--quiet",
            "--no-verify",
            "-F",
            str(message_file),
            stdin=stdin,
            env=env,
            read_only=(folder,),
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def harness_identity(project: Path) -> list[str]:
    """``-c user.name=… -c user.email=…`` for the harness's commits and merges when the
    project and the user name nobody (git refuses to commit without); else nothing."""
    if git.git(project, "config", "user.email", check=False) or any(
        key == "user.email" for key, _ in git_guard.user_identity()
    ):
        return []
    return ["-c", "user.name=coding-harness", "-c", "user.email=harness@localhost"]


def untracked(project: Path) -> set[str]:
    """Paths git does not know yet (for telling added tests from updated ones)."""
    out = git.git_bytes(project, "ls-files", "--others", "--exclude-standard", "-z")
    return {pathnames.key(raw) for raw in git.split_nul(out)}


def _is_test(path: str) -> bool:
    pure = PurePosixPath(path)
    return (
        "tests" in pure.parts
        or "test" in pure.parts
        or pure.name.startswith("test_")
        or pure.stem.endswith(("_test", ".test", ".spec"))
    )


UNTESTED = (
    "the work tree changed after the gates ran ({names}); the harness commits only "
    "what its gates tested and committed nothing (put the files back as they were, then "
    "resume)"
)


def untested_paths(project: Path, tested_tree: str, tree: str, paths: list[bytes]) -> list[bytes]:
    """Those of ``paths`` whose entry (content, mode, link) in ``tree`` differs from the
    one in ``tested_tree``, or that only one of the two has (git's bytes: the trees are
    compared whole and the names matched here, so no pathspec reads any name as a
    pattern and no list of names meets the argument limit)."""
    out = git.git_bytes(
        project, "diff-tree", "-r", "-z", "--no-renames", "--name-only", tested_tree, tree
    )
    differ = set(git.split_nul(out))
    return [raw for raw in paths if raw in differ]


def refuse_untested(
    project: Path, tested_tree: str, paths: list[bytes], *, committed: bool
) -> None:
    """Refuse a commit whose ``paths`` do not hold what the gates ran on (``tested_tree``).

    Before the commit (``committed`` false) the index is compared; after it, the commit
    itself, because ``git commit PATHS`` takes the files from the work tree again. A
    commit that differs is undone (``reset --soft``: it is the harness's own, made an
    instant ago, and no ref but ``HEAD`` has it), so that a resumed agent cannot adopt
    it by its trailer.

    Raises:
        GitError: a path differs; one line naming the first few.
    """
    if not paths:
        return
    tree = "HEAD^{tree}" if committed else git.git(project, "write-tree")
    differ = untested_paths(project, tested_tree, tree, paths)
    if not differ:
        return
    if committed:
        git.git(project, "reset", "--quiet", "--soft", "HEAD~1")
    names = ", ".join(pathnames.shown(raw) for raw in differ[:5])
    if len(differ) > 5:
        names += f" and {len(differ) - 5} more"
    raise GitError(UNTESTED.format(names=names))

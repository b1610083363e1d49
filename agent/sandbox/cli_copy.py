"""An execute-only copy of the Claude CLI, so that the CLI process is out of the model's reach.

Why: the model's Bash commands run inside the sandbox with the CLI's uid, as its
children. A process can open another's ``/proc/<pid>/fd/1`` (the CLI's stdout,
the pipe the SDK reads), ``/proc/<pid>/mem`` or ptrace it whenever both have the
same uid and the target is *dumpable*. The kernel marks a process non-dumpable
when it executes a file it cannot read; then those need ``CAP_SYS_PTRACE``, which
nothing inside the sandbox has (``--cap-drop ALL``). So the sandbox runs a copy
of the bundled CLI with mode ``0111``: it executes, it cannot be read, and every
write a command attempts into the CLI's pipes, memory or file descriptors is
refused (measured with CLI 2.1.332; see docs/security.md).

The copy is made once per CLI build (about 1.4 s for 400 MB here) and kept next to
the original (whoever can write there can replace the original too, so it is no
weaker a place); where that folder is not writable (a container's venv owned by
root), in a 0700 folder of this user's in the temporary folder, shared by every
agent; failing both, in the agent's private folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Sequence
from pathlib import Path

from common.errors import SandboxError

EXECUTE_ONLY = 0o111
"""Executable by everyone, readable by no one (root outside reads through its capabilities)."""

_PREFIX = ".claude-exec-only-"


def copy_name(original: Path) -> str:
    """The copy's file name: it changes whenever the original's build changes."""
    info = original.stat()
    return f"{_PREFIX}{info.st_size}-{info.st_mtime_ns}"


def is_execute_only(path: Path) -> bool:
    """``path`` is a regular file of this uid with mode exactly ``0111``."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    return (
        stat.S_ISREG(info.st_mode)
        and stat.S_IMODE(info.st_mode) == EXECUTE_ONLY
        and info.st_uid == os.getuid()
    )


def execute_only_copy(original: Path, folders: Sequence[Path]) -> Path:
    """The execute-only copy of ``original`` in the first of ``folders`` that holds one
    already or can take one (the copy is made now)."""
    name = copy_name(original)
    failures = []
    for folder in folders:
        target = folder / name
        if is_execute_only(target) and _same_size(target, original):
            return target
        if not os.access(folder, os.W_OK):
            failures.append(f"{folder} is not writable")
            continue
        try:
            _write_copy(original, target)
        except OSError as e:
            failures.append(f"{folder}: {e.strerror or e}")
            continue
        _remove_stale(folder, keep=name)
        return target
    raise SandboxError(
        f"cannot make the execute-only copy of {original} the sandbox runs: {'; '.join(failures)}"
    )


def execute_only_cli(cli: Path, private: Path) -> Path:
    """The CLI's execute-only copy: next to the CLI, else in this user's cache in the
    temporary folder (one for every agent, as in a container whose venv is root's), else
    in the agent's ``private`` folder."""
    shared = user_cache()
    return execute_only_copy(cli, (cli.parent, *([shared] if shared else []), private))


def user_cache(temp: Path | None = None) -> Path | None:
    """``TEMP/harness-cli-<uid>``, made 0700; ``None`` when it is not this user's alone
    (another user made it, it is a link, or others may write it)."""
    folder = (temp or Path(tempfile.gettempdir())) / f"harness-cli-{os.getuid()}"
    try:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        info = folder.lstat()
    except OSError:
        return None
    own = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
    return folder if own and stat.S_IMODE(info.st_mode) & 0o077 == 0 else None


def _same_size(copy: Path, original: Path) -> bool:
    return copy.stat().st_size == original.stat().st_size


def _write_copy(original: Path, target: Path) -> None:
    """Copy under a temporary name, then rename: concurrent agents never run half a file."""
    temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        shutil.copyfile(original, temporary)
        temporary.chmod(EXECUTE_ONLY)
        temporary.replace(target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def _remove_stale(folder: Path, keep: str) -> None:
    """Copies of earlier builds (400 MB each) go, and so do temporaries of writers that
    died; a live concurrent writer's temporary stays."""
    for old in folder.glob(f"{_PREFIX}*"):
        if old.name == keep or (old.name.endswith(".tmp") and _writer_alive(old)):
            continue
        with contextlib.suppress(OSError):
            old.unlink()


def _writer_alive(temporary: Path) -> bool:
    """Whether the process named in ``NAME.<pid>.tmp`` still runs (unknown: assume it does)."""
    try:
        pid = int(temporary.name.removesuffix(".tmp").rsplit(".", 1)[1])
        os.kill(pid, 0)
    except (ValueError, IndexError, PermissionError):
        return True
    except ProcessLookupError:
        return False
    return True

"""Many git objects read with one ``cat-file`` process for their sizes and one for their
contents, whatever their number.

Every git call of the harness is hardened and, where bubblewrap runs, jailed
(:mod:`common.workspace.git`): a process costs tens of milliseconds, so the outbound
review of a branch of 200 files, two calls a blob, spent seconds on process starts alone.
The parsers are pure (bytes in, values out) and tested without git.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from common.errors import GitError
from common.workspace import git


def sizes(project: Path, names: Sequence[str]) -> dict[str, int]:
    """Each object's size in bytes (``git cat-file --batch-check``); a missing object is a
    :class:`GitError`, as ``cat-file -s`` of it was."""
    if not names:
        return {}
    out = git.git_bytes(project, "cat-file", "--batch-check", stdin=_request(names))
    return parse_batch_check(out)


def contents(project: Path, names: Sequence[str]) -> dict[str, bytes]:
    """Each object's raw content (``git cat-file --batch``: no filters, no textconv)."""
    if not names:
        return {}
    out = git.git_bytes(project, "cat-file", "--batch", stdin=_request(names))
    return parse_batch(out)


def _request(names: Sequence[str]) -> bytes:
    """One object name a line; a name with a newline or a space would be a second request
    or a format, so it is refused (git's object names are hex)."""
    for name in names:
        if not name or any(c in name for c in " \t\n\r"):
            raise GitError(f"not an object name: {name!r}")
    return "".join(f"{name}\n" for name in names).encode()


def _header(line: bytes) -> tuple[str, int]:
    """``<name> <type> <size>`` → name, size; ``<name> missing`` is a :class:`GitError`."""
    parts = line.decode(errors="replace").split(" ")
    if len(parts) == 2 and parts[1] in ("missing", "ambiguous"):
        raise GitError(f"git cat-file: {parts[0]} is {parts[1]}")
    if len(parts) != 3 or not parts[2].isdigit():
        raise GitError(f"git cat-file: unexpected answer {line[:80]!r}")
    return parts[0], int(parts[2])


def parse_batch_check(out: bytes) -> dict[str, int]:
    """``cat-file --batch-check`` output: name → size."""
    found: dict[str, int] = {}
    for line in out.splitlines():
        name, size = _header(line)
        found[name] = size
    return found


def parse_batch(out: bytes) -> dict[str, bytes]:
    """``cat-file --batch`` output (``<name> <type> <size>\\n<content>\\n`` each): name →
    content. The sizes frame the contents, so any byte (a newline too) may be in one."""
    found: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        end = out.find(b"\n", at)
        if end < 0:
            raise GitError("git cat-file: an answer cut short")
        name, size = _header(out[at:end])
        start = end + 1
        if start + size + 1 > len(out) or out[start + size : start + size + 1] != b"\n":
            raise GitError(f"git cat-file: the content of {name} is cut short")
        found[name] = out[start : start + size]
        at = start + size + 1
    return found

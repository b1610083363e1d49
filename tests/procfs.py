"""What ``/proc`` shows of a process tree: the view any process of the same user has."""

from __future__ import annotations

from pathlib import Path


def parent_of(pid: int) -> int | None:
    """The parent pid (field 4 of ``/proc/PID/stat``), ``None`` once the process is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return int(raw.rsplit(")", 1)[1].split()[1])  # the command name may hold ")"


def process_tree(root: int) -> list[int]:
    """``root`` and every living descendant of it, parents before children."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (ppid := parent_of(int(entry.name))) is not None:
            children.setdefault(ppid, []).append(int(entry.name))
    tree = [root]
    for pid in tree:
        tree.extend(sorted(children.get(pid, [])))
    return tree


def environ_of(pid: int) -> bytes:
    """The environment ``pid`` was exec'd with, as ``/proc/PID/environ`` shows it."""
    return Path(f"/proc/{pid}/environ").read_bytes()


def cmdline_of(pid: int) -> list[str]:
    """The arguments of ``pid``."""
    raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def open_pipes(pid: int) -> list[int]:
    """The file descriptors of ``pid`` that are pipes (a descriptor number alone is reused)."""
    pipes = []
    for entry in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = entry.readlink()
        except FileNotFoundError:
            continue  # closed meanwhile
        if str(target).startswith("pipe:"):
            pipes.append(int(entry.name))
    return pipes

"""A session the harness ended at a limit: what its launcher reported, and what the next
session is told.

Why a limit is not a failure to retry blindly: going over memory, processes, a tmpfs, the
file size or the disk budget is what the model's own programs did, and doing it again the
same way ends the same way. So a session ended at a limit is an ended session (its figures
count, its work goes through the gates like any other's), never a ``SessionError``; the
next session is told, as the harness's feedback, which limit ended the previous one, and
for the disk budget which files take the space. The attempts are bounded as always (the
sessions per issue; the three attempts of a session that must deliver a report).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from pathlib import Path

from agent.sandbox import tree_size
from agent.sandbox.limits import REPORT_VARIABLE, read_report, shown_kb
from common.workspace import pathnames

SPACE_SCAN_S = 5.0
"""The time box of the walk that names what takes the space (the names only help)."""
SPACE_SHOWN = 8


@dataclass(frozen=True)
class SessionLimits:
    """Where a session's launcher reports, and since when the run's files count."""

    reports: Path
    """The agent's private folder: each session's report file is a new name in it."""
    since_ns: int | None = None
    """When the run started (the disk baseline): files changed since take the space."""

    def report_file(self) -> Path:
        """A fresh report file name for one session (nothing is created)."""
        return self.reports / f"limit-{secrets.token_hex(6)}"


def launcher_env(env: dict[str, str], report: Path | None) -> dict[str, str]:
    """The CLI's environment with the launcher's report file named (it takes the
    variable out before anything inside sees it)."""
    return env if report is None else {**env, REPORT_VARIABLE: str(report)}


async def taken(report: Path, work_tree: Path, since_ns: int | None) -> str | None:
    """What the next session is told when ``report`` says a limit ended this one
    (``None``: none did). The walk that names the space runs off the event loop."""
    found = await asyncio.to_thread(read_report, report)
    if found is None:
        return None
    kind, line = found
    if kind != "disk" or since_ns is None:
        return line
    space = await asyncio.to_thread(what_takes_space, work_tree, since_ns)
    return f"{line}\n{space}" if space else line


def what_takes_space(work_tree: Path, since_ns: int) -> str:
    """The largest files changed in ``work_tree`` since the run started, one per line
    (names escaped: the model chose them)."""
    found = tree_size.scan(
        str(work_tree), deadline_s=SPACE_SCAN_S, since_ns=since_ns, largest=SPACE_SHOWN
    )
    if not found.largest:
        return ""
    top = bytes(work_tree)
    rows = [
        f"- {pathnames.shown(path.removeprefix(top + b'/'))}: {shown_kb(kb)}"
        for kb, path in found.largest
    ]
    return "What takes the space (files changed since the run started, largest first):\n" + (
        "\n".join(rows)
    )


def feedback(limit: str) -> str:
    """The limit as the harness tells it to the next session (first in its feedback)."""
    return f"The harness ended the previous session at a limit: {limit}"

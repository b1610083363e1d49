"""The project's branch and uncommitted files, for the status bar."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from common.errors import GitError
from common.workspace import git


@dataclass(frozen=True)
class GitSummary:
    """One line's worth of git state, or why it could not be read."""

    branch: str = ""
    changed: int = 0
    problem: str = ""

    def describe(self) -> str:
        """``feature/x · 2 changed`` / ``main · clean`` / the problem."""
        if self.problem:
            return self.problem
        state = f"{self.changed} changed" if self.changed else "clean"
        return f"{self.branch} · {state}"


def read_summary(project: Path) -> GitSummary:
    """Run git in ``project`` (blocking; a few milliseconds)."""
    try:
        return GitSummary(git.current_branch(project), len(git.uncommitted_for_people(project)))
    except GitError as e:
        return GitSummary(problem=f"git: {short(str(e))}")


def short(message: str, width: int = 40) -> str:
    """git's own complaint without the command in front: ``not a git repository``."""
    text = message.split("fatal: ", 1)[-1].split(" (", 1)[0]
    return text if len(text) <= width else text[: width - 1] + "…"


async def summary(project: Path) -> GitSummary:
    """:func:`read_summary` in a thread, so the screen never waits on git."""
    return await asyncio.to_thread(read_summary, project)

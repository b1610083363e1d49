"""The project's branch and uncommitted files, for the status bar and the wizard."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from common.errors import GitError
from common.paths import WORKSPACE_ROOT_NAME
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


def uncommitted(project: Path) -> list[str]:
    """What is uncommitted in ``project`` as a person counts it, the harness's own
    workspaces left out (blocking; empty when git cannot tell). The agent never commits
    these, and project_verification lists them: the wizard says so when it is picked."""
    try:
        found = git.uncommitted_for_people(project)
    except GitError:
        return []
    return [path for path in found if not path.startswith(WORKSPACE_ROOT_NAME)]


def dirty_note(paths: list[str]) -> str:
    """``3 uncommitted changes (README.md, app.py, …): the agent never commits them;
    commit or stash them first`` (empty for a clean repository)."""
    if not paths:
        return ""
    shown = ", ".join(paths[:3]) + (", …" if len(paths) > 3 else "")
    noun = "change" if len(paths) == 1 else "changes"
    return (
        f"{len(paths)} uncommitted {noun} ({shown}): the agent never commits them; "
        "commit or stash them first"
    )

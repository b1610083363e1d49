"""Git for async code: every call runs in a worker thread, never on the event loop.

Why: the phases are coroutines, and git is a subprocess the harness waits for
(``git add`` of a big tree, a fingerprint, a revert). Run on the loop, one slot's
git would stall every other slot, the endpoint proxy and the checkpoint watch. The
calls here are those of :mod:`common.workspace.git` and :mod:`agent.core.git.commits`
the phases use, each awaited; synchronous code keeps calling those modules directly.
A helper of a phase that runs several git commands in a row goes through
:func:`off_loop` whole (it must not touch the state: state edits stay on the loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from agent.core.git import commits
from common.workspace import git as sync_git

P = ParamSpec("P")
T = TypeVar("T")


async def off_loop(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)`` in a worker thread: for a helper that runs git."""
    return await asyncio.to_thread(call, *args, **kwargs)


async def git(repo: Path, *args: str, check: bool = True) -> str:
    """:func:`common.workspace.git.git`, off the loop."""
    return await asyncio.to_thread(sync_git.git, repo, *args, check=check)


async def git_bytes(repo: Path, *args: str, check: bool = True) -> bytes:
    """:func:`common.workspace.git.git_bytes`, off the loop."""
    return await asyncio.to_thread(sync_git.git_bytes, repo, *args, check=check)


async def current_branch(repo: Path) -> str:
    return await asyncio.to_thread(sync_git.current_branch, repo)


async def head_commit(repo: Path) -> str:
    return await asyncio.to_thread(sync_git.head_commit, repo)


async def branch_exists(repo: Path, branch: str) -> bool:
    return await asyncio.to_thread(sync_git.branch_exists, repo, branch)


async def changed_files(repo: Path) -> list[str]:
    return await asyncio.to_thread(sync_git.changed_files, repo)


async def uncommitted_for_people(repo: Path) -> list[str]:
    return await asyncio.to_thread(sync_git.uncommitted_for_people, repo)


async def session_changes(
    project: Path, touched: set[str], dirty_before: set[str]
) -> commits.SessionChanges:
    """:func:`agent.core.git.commits.session_changes`, off the loop."""
    return await asyncio.to_thread(commits.session_changes, project, touched, dirty_before)


async def untracked(project: Path) -> set[str]:
    return await asyncio.to_thread(commits.untracked, project)


async def find_session_commit(project: Path, since: str, iid: int, session: int) -> str | None:
    return await asyncio.to_thread(commits.find_session_commit, project, since, iid, session)


async def commit(
    project: Path,
    files: list[str],
    text: str,
    *,
    allow_empty: bool = False,
    tested_tree: str | None = None,
) -> str:
    """:func:`agent.core.git.commits.commit`, off the loop."""
    return await asyncio.to_thread(
        commits.commit, project, files, text, allow_empty=allow_empty, tested_tree=tested_tree
    )

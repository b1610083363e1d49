"""Git from async code runs off the event loop: a slow git never stalls the others.

The harness's git is the one found on ``PATH`` (:func:`common.workspace.git_jail.git_binary`);
here that is a wrapper that sleeps before it hands over to the real git, so every git
call is slow. While one coroutine waits for it, another must keep ticking.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path

import pytest

from agent.core.git import agit
from common.workspace import git
from tests.core.runs import sh_git

SLOW_S = 0.8
TICK_S = 0.02


@pytest.fixture
def slow_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository, with every git the harness runs taking ``SLOW_S`` longer."""
    repo = tmp_path / f"repo-{os.getpid()}-{time.monotonic_ns()}"
    repo.mkdir()
    sh_git(repo, "init", "-q", "-b", "main")
    sh_git(repo, "commit", "-q", "--allow-empty", "-m", "x")
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "slow-bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nsleep {SLOW_S}\nexec {Path(real).resolve()} "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert git.head_commit(repo)  # the wrapper answers (and its --exec-path is looked up)
    return repo


async def ticks_during(call: asyncio.Future[object] | asyncio.Task[object]) -> int:
    """How often a coroutine got the loop while ``call`` ran."""
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(TICK_S)
            ticks += 1

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    await call
    ticking.cancel()
    return ticks


async def test_a_slow_git_leaves_the_loop_to_the_others(slow_git: Path) -> None:
    started = time.monotonic()
    ticks = await ticks_during(asyncio.ensure_future(agit.head_commit(slow_git)))
    elapsed = time.monotonic() - started
    assert elapsed >= SLOW_S
    assert ticks >= (SLOW_S / TICK_S) / 3  # the loop ran all along (a third: a loaded machine)


async def test_the_same_git_called_directly_would_stall_the_loop(slow_git: Path) -> None:
    """The contrast that makes the test above mean something."""

    async def on_the_loop() -> str:
        return git.head_commit(slow_git)

    assert await ticks_during(asyncio.ensure_future(on_the_loop())) <= 1


async def test_a_commit_off_the_loop_is_a_commit(slow_git: Path) -> None:
    (slow_git / "a.py").write_text("x = 1\n")
    sha = await agit.commit(slow_git, ["a.py"], "feat(#1): a\n")
    assert sha == sh_git(slow_git, "rev-parse", "HEAD")
    assert await agit.git(slow_git, "log", "-1", "--format=%s") == "feat(#1): a"
    assert await agit.changed_files(slow_git) == []

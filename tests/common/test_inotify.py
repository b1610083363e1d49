"""Waiting on a folder with inotify: woken by writes and renames, never by a timer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from common.atomic import write_bytes_atomic
from common.inotify import FolderWatch, WatchError


async def test_an_atomic_write_wakes_the_wait_with_its_name(tmp_path: Path) -> None:
    async with FolderWatch(tmp_path) as watch:
        waiting = asyncio.create_task(watch.changed())
        await asyncio.sleep(0.05)
        assert not waiting.done()

        write_bytes_atomic(tmp_path / "state.json", b"{}")

        names = await asyncio.wait_for(waiting, 5)
    assert "state.json" in names


async def test_a_change_before_the_wait_is_not_missed(tmp_path: Path) -> None:
    async with FolderWatch(tmp_path) as watch:
        (tmp_path / "decision.json").write_text("x")

        names = await asyncio.wait_for(watch.changed(), 5)
    assert "decision.json" in names


async def test_a_missing_folder_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WatchError, match=r"cannot watch .*absent"):
        async with FolderWatch(tmp_path / "absent"):
            pass

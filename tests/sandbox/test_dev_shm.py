"""bwrap's ``/dev`` is an unsized tmpfs with ``/dev/shm`` inside it (red team, issue 26):
a session's program wrote 50 MB to each, RAM taken past every tmpfs size the sandbox
set. ``/dev/shm`` now has a size of its own, and ``/dev`` is read-only."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import bwrap_argv

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
SIZE_MB = 8

SCRIPT = """
dd if=/dev/zero of=/dev/shm/fill bs=1M count=32 2>/dev/null
echo "shm $(($(wc -c < /dev/shm/fill) / 1048576))"
if (echo x > /dev/planted) 2>/dev/null; then echo "dev writable"; else echo "dev refused"; fi
echo x > /dev/null && echo "null works"
"""


async def test_dev_shm_is_sized_and_dev_is_read_only(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert BWRAP is not None
    size = SIZE_MB << 20
    async with session_sandbox(project, BWRAP, {}, tmpfs_bytes=size) as box:
        done = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, ["/bin/sh", "-c", SCRIPT]), stdout=subprocess.PIPE
        )
        out = (await done.communicate())[0].decode().split("\n")
    assert f"shm {SIZE_MB}" in out, out
    assert "dev refused" in out and "null works" in out, out

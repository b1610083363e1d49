"""The system folders' private files in the sandbox (red team, issue 26).

Run as root (a container, a CI job), the harness's user owns ``/etc/shadow``, the SSH
host keys and ``/etc/ssl/private``, and the model's commands read ``/etc/shadow``.
Entries the world may not read are now covered; the rest of ``/etc`` is as it was.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import bwrap_argv
from agent.sandbox.system_secrets import private_entries

BWRAP = find_bwrap()


def test_what_the_world_may_not_read_is_found_without_following_links(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    (etc / "ssl" / "private").mkdir(parents=True)
    (etc / "ssl" / "private" / "key.pem").write_text("KEY")
    (etc / "ssl" / "private").chmod(0o700)
    (etc / "shadow").write_text("root:x")
    (etc / "shadow").chmod(0o640)
    (etc / "passwd").write_text("root:x:0:0")
    (etc / "passwd").chmod(0o644)
    (etc / "link").symlink_to(etc / "shadow")
    found = private_entries((etc,))
    assert found.files == (etc / "shadow",)
    assert found.folders == (etc / "ssl" / "private",)
    assert found.complete


def test_a_walk_out_of_time_says_so(tmp_path: Path) -> None:
    assert not private_entries((tmp_path,), budget_s=-1).complete


def first_line(path: str) -> str:
    return Path(path).read_text().splitlines()[0]


def world_readable(path: str) -> bool:
    return bool(Path(path).stat().st_mode & 0o004)


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
@pytest.mark.skipif(os.getuid() != 0, reason="only root owns /etc/shadow's content")
async def test_the_models_commands_cannot_read_the_systems_secrets(tmp_path: Path) -> None:
    assert not world_readable("/etc/shadow")
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert BWRAP is not None
    script = "cat /etc/shadow; echo; head -1 /etc/passwd"
    async with session_sandbox(project, BWRAP, {}) as box:
        done = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, ["/bin/sh", "-c", script]),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        out = (await done.communicate())[0].decode()
    assert first_line("/etc/shadow") not in out
    assert out.strip().endswith(first_line("/etc/passwd"))

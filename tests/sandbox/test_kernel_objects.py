"""Real bubblewrap: a session's program cannot take the user's share of kernel objects.

The kernel counts inotify instances and watches, fanotify groups and namespaces per user,
across every namespace the user made. Unbounded, a sandboxed program held all 128 inotify
instances of the user here, and the agent's own ``inotify_init`` (how it waits for a
person's answer) failed with "Too many open files". Each sandbox now has a share of its
own, set by the relay before it drops every capability.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.plan import bwrap_argv
from agent.sandbox.relay import KERNEL_OBJECT_LIMITS

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")

HOARD = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
held = []
while len(held) < 500 and (fd := libc.inotify_init()) >= 0:
    held.append(fd)
print("held", len(held), flush=True)
sys.stdin.readline()
"""


async def test_a_sandbox_holds_only_its_share_of_inotify_instances(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "hoard.py").write_text(HOARD)
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {}) as box:
        command = ["/usr/bin/python3", "-I", str(project / "hoard.py")]
        hoard = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, command), stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert hoard.stdout is not None and hoard.stdin is not None
        said = (await asyncio.wait_for(hoard.stdout.readline(), 30)).decode().split()
        libc = ctypes.CDLL(None, use_errno=True)
        ours = libc.inotify_init()  # the agent's own, while the sandbox holds its share
        hoard.stdin.close()
        await hoard.wait()
    assert said == ["held", str(KERNEL_OBJECT_LIMITS["max_inotify_instances"])]
    assert ours >= 0, os.strerror(ctypes.get_errno())
    os.close(ours)


async def test_the_command_inside_has_no_capability_left(tmp_path: Path) -> None:
    """The relay gets two capabilities to set the limits; nothing it runs has any."""
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {}) as box:
        command = ["/bin/sh", "-c", "grep ^Cap /proc/self/status; cat /proc/sys/user/*"]
        done = await asyncio.create_subprocess_exec(
            *bwrap_argv(box.plan, BWRAP, command), stdout=subprocess.PIPE
        )
        out, _ = await done.communicate()
    lines = out.decode().splitlines()
    capabilities = {line.split()[0]: line.split()[1] for line in lines if line.startswith("Cap")}
    assert set(capabilities) == {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"}
    assert set(capabilities.values()) == {"0000000000000000"}, capabilities
    limits = [int(line) for line in lines if not line.startswith("Cap")]
    assert max(limits) <= max(KERNEL_OBJECT_LIMITS.values())

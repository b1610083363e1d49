"""Real bubblewrap: the browser's output folder in each sandbox, and in none of the gates."""

from __future__ import annotations

import asyncio
import shlex
import socket
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import SessionSandbox, session_sandbox

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
NONCE = "h2-slot-output-51e0"
OPEN: list[socket.socket] = []


async def write_inside(argv: list[str], project: Path, folder: Path) -> None:
    """``argv`` (a sandbox's command line) running a shell that writes into ``folder``."""
    line = f"echo {NONCE} > {shlex.quote(str(folder))}/shot.png"
    proc = await asyncio.create_subprocess_exec(
        *argv, "/bin/sh", "-c", line, cwd=project, stderr=subprocess.PIPE
    )
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()


def entrance_argv(sandbox: SessionSandbox, work_tree: Path) -> list[str]:
    """The command line of a session's own sandbox in ``work_tree``, without its CLI (its
    entrance a plain listening socket: nothing here asks the model)."""
    entrance = sandbox.own_entrance(work_tree)
    listening = socket.socket(socket.AF_UNIX)
    listening.bind(str(entrance.socket))
    listening.listen()
    OPEN.append(listening)
    line = next(x for x in entrance.cli_path.read_text().splitlines() if x.startswith("exec "))
    return shlex.split(line)[1:-2]  # without "exec", the CLI and the caller's "$@"


async def test_a_slots_session_writes_to_a_folder_of_its_own(tmp_path: Path) -> None:
    project, slot = tmp_path / "proj", tmp_path / "slot"
    project.mkdir()
    slot.mkdir()
    assert BWRAP is not None
    base = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:45679/"}
    async with session_sandbox(project, BWRAP, base) as sandbox:
        out = sandbox.browser_output()
        sandbox.show_browser((), out)
        own = sandbox.browser_output_for(slot)
        assert own != out and sandbox.browser_output_for(project) == out

        await write_inside(entrance_argv(sandbox, slot), slot, out)  # the same path inside
        assert (own / "shot.png").read_text().strip() == NONCE
        assert not (out / "shot.png").exists()

        await write_inside(entrance_argv(sandbox, project), project, out)
        assert (out / "shot.png").read_text().strip() == NONCE

        gate = sandbox.wrap(["/bin/sh", "-c", f"test ! -e {shlex.quote(str(out))}"], project)
        assert subprocess.run(gate, cwd=project, check=False).returncode == 0  # not in a gate

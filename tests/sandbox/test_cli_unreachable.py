"""Real bubblewrap: a command cannot reach the process that holds the SDK's pipes.

The session's layout (the plan of :func:`agent.sandbox.launcher.session_sandbox`)
runs a stand-in for the CLI: a copy of ``/bin/sh`` that starts a "tool command"
(:mod:`tests.sandbox.cli_reach_probe`) as its child, exactly as the CLI starts the
model's Bash commands. The stand-in's stdout is a pipe this test reads, like the
SDK reads the CLI's. With the stand-in execute-only (what the sandbox does with the
real CLI), the probe reaches neither it nor the relay (the namespace's first
process): no descriptor, no memory, no ptrace, and no forged line on the pipe. With
a readable stand-in, the same probe gets through: the attack is real and the probe
sees it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.cli_copy import execute_only_copy
from agent.sandbox.launcher import SessionSandbox, session_sandbox
from agent.sandbox.plan import INSIDE_DIR, bwrap_argv

BWRAP = find_bwrap()
PROBE = Path(__file__).with_name("cli_reach_probe.py")
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
REACH_KINDS = ("fd", "fd0", "fd1", "mem", "ptrace")


@pytest.fixture
async def sandbox(tmp_path: Path) -> AsyncIterator[SessionSandbox]:
    project = tmp_path / "proj"
    project.mkdir()
    shutil.copy(PROBE, project / "probe.py")
    assert BWRAP is not None
    async with session_sandbox(project, BWRAP, {}) as box:
        yield box


def stand_in(folder: Path, *, execute_only: bool) -> Path:
    """A copy of ``sh`` to play the CLI: execute-only as the sandbox makes it, or readable."""
    shell = Path("/bin/sh").resolve()
    if execute_only:
        return execute_only_copy(shell, (folder,))
    readable = folder / "readable-sh"
    shutil.copyfile(shell, readable)
    readable.chmod(0o755)
    return readable


async def run_stand_in(box: SessionSandbox, cli: Path) -> tuple[dict[str, dict[str, str]], str]:
    """The probe's findings about the stand-in and pid 1, and what reached the SDK's pipe."""
    report = box.plan.project_dir / "reach.json"
    # A pipeline, not `> reach.json`: dash redirects its own stdout for a redirected command.
    script = f'{box.plan.python} probe.py 1 $$ | cat > reach.json; echo "cli pid $$"'
    assert BWRAP is not None
    argv = bwrap_argv(replace(box.plan, cli=cli), BWRAP, [str(cli), "-c", script])
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ)
    )
    out, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    stdout = out.decode()
    cli_pid = stdout.rsplit("cli pid ", 1)[1].split()[0]
    found = json.loads(report.read_text())
    return {"cli": found[cli_pid], "first": found["1"]}, stdout


async def test_a_command_cannot_reach_an_execute_only_cli_nor_the_relay(
    sandbox: SessionSandbox, tmp_path: Path
) -> None:
    found, stdout = await run_stand_in(sandbox, stand_in(tmp_path, execute_only=True))
    assert found["first"]["name"] == str(sandbox.plan.python), found["first"]
    for who in ("cli", "first"):
        for kind in REACH_KINDS:
            assert found[who][kind] != "ok", (who, kind, found[who])
    assert "forged_by" not in stdout, stdout


async def test_the_same_probe_reaches_a_readable_cli_and_forges_a_line(
    sandbox: SessionSandbox, tmp_path: Path
) -> None:
    found, stdout = await run_stand_in(sandbox, stand_in(tmp_path, execute_only=False))
    assert found["cli"]["fd1"] == "ok" and found["cli"]["ptrace"] == "ok", found["cli"]
    assert '"forged_by":"cli_reach_probe"' in stdout
    for kind in REACH_KINDS:  # the relay stays out of reach either way
        assert found["first"][kind] != "ok", (kind, found["first"])


async def test_the_first_process_is_the_relay_not_a_bwrap_init(sandbox: SessionSandbox) -> None:
    assert BWRAP is not None
    argv = bwrap_argv(sandbox.plan, BWRAP, ["/bin/sh", "-c", "tr '\\0' ' ' < /proc/1/cmdline"])
    done = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    relay = [str(sandbox.plan.python), "-I", "-S", str(INSIDE_DIR / "relay.py")]
    assert done.stdout.split()[:4] == relay, done.stdout


async def test_the_cli_has_no_messaging_socket_to_inject_user_messages_through(
    sandbox: SessionSandbox,
) -> None:
    assert BWRAP is not None
    script = (
        "for d in /tmp/cc-socks /tmp/cc-socks-$(id -u); do "
        "touch $d/1.sock 2>/dev/null || echo refused; done"
    )
    argv = bwrap_argv(sandbox.plan, BWRAP, ["/bin/sh", "-c", script])
    done = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True)
    assert done.stdout.split() == ["refused", "refused"], (done.stdout, done.stderr)

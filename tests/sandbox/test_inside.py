"""Real bubblewrap around a shell: what a session's commands can and cannot do.

Each test runs ``sh -c SCRIPT`` in the very layout a session gets (the plan of
:func:`agent.sandbox.launcher.session_sandbox`, bridge and relay included).
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.core.gates import gates
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import SessionSandbox, session_sandbox
from agent.sandbox.plan import bwrap_argv
from tests.procfs import cmdline_of

BWRAP = find_bwrap()
HARNESS_CHECKOUT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")


@dataclass
class Box:
    project: Path
    sibling: Path
    harness_home: Path
    sandbox: SessionSandbox
    model_port: int

    async def sh(self, script: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
        assert BWRAP is not None
        argv = bwrap_argv(self.sandbox.plan, BWRAP, ["/bin/sh", "-c", script])
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=self.project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **self.sandbox.env},
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
        assert proc.returncode is not None
        return subprocess.CompletedProcess(argv, proc.returncode, out.decode(), err.decode())


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    line = await reader.readline()
    writer.write(b"model says: " + line)
    await writer.drain()
    writer.close()


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), *args], check=True, capture_output=True)


@pytest.fixture
async def box(isolated_home: Path, tmp_path: Path) -> AsyncIterator[Box]:
    project = tmp_path / "proj"
    project.mkdir()
    _git(project, "init", "-q", "-b", "main")
    (project / "README.md").write_text("hi\n")
    _git(project, "add", ".")
    _git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    workspace = project / ".claude-agent" / "spec-1234"
    workspace.mkdir(parents=True)
    (workspace / ".hitl_checkpoint.json").write_text("{}")
    sibling = tmp_path / "sibling"
    sibling.mkdir()
    (sibling / "secret.txt").write_text("s3cret")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(isolated_home / "daemon.sock"))
    model = await asyncio.start_server(_answer, "127.0.0.1", 0)
    port = model.sockets[0].getsockname()[1]
    assert BWRAP is not None
    env = {"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"}
    try:
        async with session_sandbox(project, BWRAP, env) as sandbox:
            yield Box(project, sibling, isolated_home, sandbox, port)
    finally:
        model.close()
        listener.close()


async def test_the_project_is_writable(box: Box) -> None:
    done = await box.sh("echo made > new.txt && cat new.txt")
    assert done.returncode == 0, done.stderr
    assert (box.project / "new.txt").read_text() == "made\n"


async def test_git_is_readable_but_not_writable(box: Box) -> None:
    done = await box.sh("git log --oneline | wc -l")
    assert done.stdout.strip() == "1", done.stderr
    for script in (
        "echo '[core] hooksPath = /tmp' >> .git/config",
        "echo 'curl x | sh' > .git/hooks/post-commit",
        "git config core.fsmonitor 'touch /tmp/x'",
        "git update-ref refs/heads/main HEAD",
    ):
        assert (await box.sh(script)).returncode != 0, script
    assert "hooksPath" not in (box.project / ".git" / "config").read_text()
    assert not (box.project / ".git" / "hooks" / "post-commit").exists()


async def test_no_capability_is_left_to_remount_the_read_only_parts(box: Box) -> None:
    caps = await box.sh("grep CapEff /proc/self/status")
    assert caps.stdout.split() == ["CapEff:", "0000000000000000"]
    remount = await box.sh("mount -o remount,rw,bind .git && echo x >> .git/config")
    assert remount.returncode != 0
    assert "x\n" not in (box.project / ".git" / "config").read_text()


async def test_the_workspace_is_absent_and_read_only(box: Box) -> None:
    listing = await box.sh("ls -A .claude-agent")
    assert listing.returncode == 0 and listing.stdout == ""
    forged = await box.sh("mkdir -p .claude-agent/spec-1234 && echo forged > .claude-agent/x")
    assert forged.returncode != 0
    checkpoint = box.project / ".claude-agent" / "spec-1234" / ".hitl_checkpoint.json"
    assert checkpoint.read_text() == "{}"


async def test_home_is_scratch_and_the_harness_home_is_invisible(box: Box) -> None:
    real_home = os.environ["HOME"]
    done = await box.sh(
        'echo "$HOME|${HARNESS_HOME:-unset}"; touch "$HOME/ok"; '
        f"ls {box.harness_home}/daemon.sock || echo no-socket; ls {real_home} || echo no-home"
    )
    home, harness_home = done.stdout.splitlines()[0].split("|")
    assert home == str(box.sandbox.plan.scratch_home) and home != real_home
    assert harness_home == "unset"
    assert "no-socket" in done.stdout and "no-home" in done.stdout


async def test_other_repositories_and_the_harness_checkout_are_invisible(box: Box) -> None:
    done = await box.sh(f"cat {box.sibling}/secret.txt; ls {HARNESS_CHECKOUT}; ls /work /root")
    assert "s3cret" not in done.stdout
    assert "pyproject.toml" not in done.stdout


async def test_no_harness_process_is_visible_in_proc(box: Box) -> None:
    done = await box.sh("for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done")
    assert done.returncode == 0
    ours = " ".join(cmdline_of(os.getpid()))
    commands = [line.strip() for line in done.stdout.splitlines() if line.strip()]
    assert commands and ours not in commands
    programs = {Path(line.split()[0]).name.rstrip("0123456789.") for line in commands}
    assert programs <= {"bwrap", "python", "sh", "tr"}, commands
    environ = await box.sh(f"cat /proc/{os.getpid()}/environ | tr '\\0' ' '")
    assert "HARNESS_HOME" not in environ.stdout
    pids = await box.sh("ls /proc | grep -c '^[0-9]'")
    assert int(pids.stdout) <= 5  # bwrap's init, the relay, sh and its children


async def test_no_network_but_the_model_endpoint(box: Box) -> None:
    outside = socket.create_server(("127.0.0.1", 0))
    port = outside.getsockname()[1]
    try:
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), 2)"
        done = await box.sh(f'{box.sandbox.plan.python} -c "{connect}"')
        assert done.returncode != 0
        assert "Connection refused" in done.stderr, done.stderr
    finally:
        outside.close()
    model_url = box.sandbox.env["ANTHROPIC_BASE_URL"]
    assert model_url == f"http://127.0.0.1:{box.model_port}"
    ask = (
        "import socket; s = socket.create_connection(('127.0.0.1', "
        f"{box.model_port}), 5); s.sendall(b'hello\\n'); print(s.recv(100).decode())"
    )
    done = await box.sh(f'{box.sandbox.plan.python} -c "{ask}"')
    assert done.stdout.strip() == "model says: hello", done.stderr


def _sleepers(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker in cmdline_of(int(entry.name)):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


async def test_a_background_process_dies_with_the_sandbox(box: Box) -> None:
    marker = f"{3000 + os.getpid() % 1000}"
    done = await box.sh(
        f"nohup sleep {marker} >/dev/null 2>&1 & setsid sleep {marker} >/dev/null 2>&1 & "
        "sleep 0.3; for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done"
        f" | grep -c '^sleep {marker}'"
    )
    assert int(done.stdout) >= 2, done.stderr  # both were running when the session ended
    assert await asyncio.to_thread(_gone, marker, 5.0)


def _gone(marker: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _sleepers(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def test_the_test_gate_runs_the_model_s_code_in_the_sandbox(box: Box) -> None:
    command = "touch gate.txt && ls -A .claude-agent && touch .git/forged"
    result = await gates.run_tests(box.project, command, dict(os.environ), wrap=box.sandbox.wrap)
    assert (box.project / "gate.txt").exists()
    assert result.exit_code != 0 and "Read-only file system" in result.output_tail
    assert not (box.project / ".git" / "forged").exists()
    assert "spec-1234" not in result.output_tail

"""Only clients can change an agent: a process of a sandbox or of an agent is refused.

Real processes throughout: a daemon, fake agents, and ``intruder.py`` (the red team's
conftest.py as a script: list the agents, switch auto-accept on for each) run inside a
real bubblewrap, as a child of a supervised agent, as an orphan that left the agent,
and, as the control, as an ordinary client, which is served.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running, start_daemon
from agent.daemon.peer import own_namespaces, peer_process, read_process
from agent.daemon.peer_rules import REFUSAL_MESSAGE
from agent.daemon.server import DaemonServer
from common.bwrap import find_bwrap, probe
from common.paths import daemon_log_path
from common.schemas.daemon_state import DaemonStatusFile

from .conftest import MakeSpec
from .helpers import WAIT, start_ready, until_answering
from .test_process_daemon import DAEMON_ARGS

INTRUDER = Path(__file__).with_name("intruder.py")
BWRAP = find_bwrap()
needs_bwrap = pytest.mark.skipif(probe(BWRAP) is not None, reason=f"no usable bwrap: {BWRAP}")
needs_unshare = pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("unshare") is None,
    reason="needs root and unshare(1) for a mount namespace of its own",
)


@pytest.fixture
async def daemon_process(harness_home: Path) -> AsyncIterator[DaemonStatusFile]:
    """A real ``python -m agent.daemon`` running fake agents; killed if a test left it."""
    status = await start_daemon(daemon_args=DAEMON_ARGS)
    yield status
    running = daemon_running()
    if running is not None:
        os.kill(running.pid, signal.SIGKILL)


async def _run(*argv: str) -> list[str]:
    """Run ``argv`` to its end; its output lines."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd="/"
    )
    out, _ = await asyncio.wait_for(proc.communicate(), WAIT)
    return out.decode().splitlines()


def _assert_refused(lines: list[str]) -> None:
    """One error frame with the refusal, then the daemon closed the connection."""
    assert len(lines) == 2, lines
    refusal = json.loads(lines[0])
    assert (refusal["type"], refusal["message"]) == ("error", REFUSAL_MESSAGE), lines
    assert lines[1] == "eof"


def _bwrap(*command: str) -> list[str]:
    """The least a sandbox can be: a PID namespace (and bwrap's mount namespace)."""
    assert BWRAP is not None
    sandbox = [str(BWRAP), "--unshare-pid", "--unshare-user-try", "--die-with-parent"]
    return [*sandbox, "--dev-bind", "/", "/", "--proc", "/proc", *command]


def _session_like_bwrap(*command: str) -> list[str]:
    """A session's sandbox (every namespace, no capability, a new session, a read-only
    world) with the one mistake of the red team's ``.pth``: the daemon's folder bound in."""
    assert BWRAP is not None
    home = os.environ["HARNESS_HOME"]
    sandbox = [str(BWRAP), "--unshare-all", "--cap-drop", "ALL", "--die-with-parent"]
    sandbox += ["--new-session", "--ro-bind", "/", "/", "--bind", home, home]
    return [*sandbox, "--proc", "/proc", "--dev", "/dev", *command]


@pytest.mark.parametrize(
    ("wrapper", "rule"),
    [
        pytest.param(_bwrap, "another PID namespace", marks=needs_bwrap, id="bubblewrap"),
        pytest.param(
            _session_like_bwrap,
            "another PID namespace",
            marks=needs_bwrap,
            id="session-sandbox-with-the-socket-bound",
        ),
        pytest.param(
            lambda *c: ["unshare", "--mount", *c],
            "another mount namespace",
            marks=needs_unshare,
            id="mount-namespace-only",
        ),
    ],
)
async def test_a_client_in_a_sandbox_is_refused_logged_counted_and_changes_nothing(
    daemon_process: DaemonStatusFile,
    harness_home: Path,
    make_spec: MakeSpec,
    wrapper: object,
    rule: str,
) -> None:
    async with DaemonClient.connect() as client:
        agent = await start_ready(client, make_spec("idle"))
    assert callable(wrapper)
    socket_path = str(daemon_process.socket)

    lines = await _run(*wrapper(sys.executable, "-I", str(INTRUDER), socket_path))

    _assert_refused(lines)
    async with DaemonClient.connect() as client:
        assert client.hello.refused_connections == 1
        assert (await client.status(agent.name)).auto_accept is False
    log = daemon_log_path(harness_home).read_text()
    [line] = [line for line in log.splitlines() if "refused a connection" in line]
    assert rule in line and "refused so far: 1" in line, line
    status = await _run(sys.executable, "-m", "agent.control", "daemon", "status")
    assert "the daemon refused 1 connection from agent processes" in status[-1], status

    # The control: the very same script, run as an ordinary client, is served.
    served = await _run(sys.executable, "-I", str(INTRUDER), socket_path)
    assert json.loads(served[0])["type"] == "hello" and served[-1] == "open", served
    switched = json.loads(served[2])
    assert (switched["type"], switched["agent"]["auto_accept"]) == ("agent", True), served


@pytest.mark.parametrize("mode", ["intruder", "orphan-intruder"])
async def test_a_process_an_agent_started_is_refused(
    daemon: DaemonServer,
    client: DaemonClient,
    make_spec: MakeSpec,
    caplog: pytest.LogCaptureFixture,
    mode: str,
) -> None:
    agent = await start_ready(client, make_spec(mode))  # ready once the intruder answered

    lines = (agent.workspace / "intruder.out").read_text().splitlines()

    _assert_refused(lines)
    assert daemon.refused_connections == 1
    assert (await client.status(agent.name)).auto_accept is False
    expected = "descends from agent_1" if mode == "intruder" else "in the session of agent_1"
    assert any(expected in record.getMessage() for record in caplog.records), caplog.text


async def test_the_test_s_own_client_is_served_and_counts_nothing(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await start_ready(client, make_spec("idle"))
    switched = await client.set_auto_accept(agent.name, True)
    assert switched.auto_accept is True
    assert client.hello.refused_connections == 0 and daemon.refused_connections == 0


def test_the_peer_of_a_socket_is_read_from_the_kernel() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        me = peer_process(left)
    assert me is not None
    assert me.pid == os.getpid() and me.namespaces == own_namespaces()
    assert me.lineage[0].pid == os.getpid() and me.lineage[1].pid == os.getppid()
    assert me.session == os.getsid(0) and me.group == os.getpgid(0)
    assert read_process(os.getppid()) is not None
    assert peer_process(None) is None


def test_a_peer_that_exited_before_the_check_is_unknown(tmp_path: Path) -> None:
    """Its pid may already belong to another process: the pidfd says it is gone."""
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(path)
        server.listen()
        peer = subprocess.run(
            [
                sys.executable,
                "-c",
                f"import socket; socket.socket(socket.AF_UNIX).connect({path!r})",
            ],
            check=True,
            timeout=WAIT,
        )
        assert peer.returncode == 0
        connection, _ = server.accept()
        with connection:
            assert peer_process(connection) is None


needs_nsenter = pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("unshare") is None or shutil.which("nsenter") is None,
    reason="needs root, unshare(1) and nsenter(1) to run a daemon in namespaces of its own",
)


@pytest.fixture
async def daemon_in_namespaces(harness_home: Path) -> AsyncIterator[int]:
    """A daemon in PID and mount namespaces of its own, as in the Docker image; its host pid."""
    process = subprocess.Popen(
        [
            *("unshare", "--pid", "--fork", "--mount-proc", "--kill-child"),
            *(sys.executable, "-m", "agent.daemon", *DAEMON_ARGS),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        status = await until_answering(harness_home, process)
        assert status.pid == 1  # as the daemon sees itself
        daemon_pid = _only_child(process.pid)
    except BaseException:
        process.kill()  # --kill-child: the daemon goes with it
        process.wait(WAIT)
        raise
    yield daemon_pid
    os.kill(daemon_pid, signal.SIGTERM)  # a clean stop; unshare itself ignores SIGTERM
    await asyncio.to_thread(process.wait, WAIT)


def _only_child(pid: int) -> int:
    [child] = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return int(child)


@needs_nsenter
async def test_a_client_joining_the_daemon_s_namespaces_like_docker_exec_is_served(
    daemon_in_namespaces: int, harness_home: Path
) -> None:
    """``docker exec`` joins the container's namespaces from outside: its parent is not
    visible there (PPid 0). The daemon serves it; a process left outside is refused."""
    socket_path = str(harness_home / "daemon.sock")
    intruder = (sys.executable, "-I", str(INTRUDER), socket_path)
    joined = ("nsenter", f"--target={daemon_in_namespaces}", "--pid", "--mount")

    served = await _run(*joined, *intruder)
    outside = await _run(*intruder)

    assert json.loads(served[0])["type"] == "hello" and served[-1] == "open", served
    _assert_refused(outside)
    log = daemon_log_path(harness_home).read_text()
    assert "PID namespace the daemon cannot see" in log, log

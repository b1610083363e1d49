"""Every request of the protocol, against an in-process daemon and real agent processes."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running
from agent.daemon.procs import is_alive
from agent.daemon.server import DaemonServer
from common.atomic import read_model
from common.decision_mac import load_key, sign_auto_accept
from common.errors import DaemonError
from common.paths import WorkspaceFiles, daemon_state_path, daemon_status_path, socket_path
from common.schemas.auto_accept import AutoAcceptRules, parse_rules
from common.schemas.daemon_state import AgentStatus, DaemonState
from common.schemas.workspace import WorkspaceInfo

from .conftest import MakeSpec, make_supervisor
from .helpers import event_where, process_exit, snapshot, start_ready


def proc_link(pid: int, name: str) -> Path:
    """Where ``/proc/PID/NAME`` points (the process's cwd, one of its descriptors)."""
    return Path(f"/proc/{pid}/{name}").resolve()


async def test_a_fresh_daemon_lists_no_agents(client: DaemonClient) -> None:
    assert await client.list_agents() == []
    assert client.hello.daemon_pid == os.getpid()


async def test_start_spawns_the_agent_in_its_own_session(
    client: DaemonClient, make_spec: MakeSpec, project: Path, harness_home: Path
) -> None:
    spec = make_spec("idle")

    agent = await client.start(spec)

    assert agent.name == "agent_1"
    assert agent.status is AgentStatus.RUNNING
    assert agent.pid is not None and is_alive(agent.pid, None)
    assert os.getsid(agent.pid) == agent.pid
    assert proc_link(agent.pid, "cwd") == project  # tmp_path is already resolved
    assert proc_link(agent.pid, "fd/0") == Path("/dev/null")
    assert agent.workspace.parent == project / ".claude-agent"
    assert agent.log_file.parent == WorkspaceFiles(agent.workspace).logs
    assert re.fullmatch(r"agent_1-\d{8}-\d{6}\.log", agent.log_file.name)
    registry = read_model(daemon_state_path(harness_home), DaemonState)
    [record] = registry.agents
    assert (record.name, record.pid, record.spec) == ("agent_1", agent.pid, spec)
    assert record.pid_start_ticks is not None and is_alive(agent.pid, record.pid_start_ticks)
    assert registry.next_number == 2


async def test_agents_are_found_by_name_or_unique_prefix(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    await client.start(make_spec("idle"))

    assert (await client.status("agent_1")).name == "agent_1"
    assert (await client.status("ag")).name == "agent_1"
    await client.start(make_spec("stubborn"))
    with pytest.raises(DaemonError, match="agent_ matches several agents"):
        await client.status("agent_")
    with pytest.raises(DaemonError, match=r"^no agent named nobody$"):
        await client.status("nobody")


async def test_stop_ends_the_agent_and_its_process_group(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    started = await start_ready(client, make_spec("family"))
    grandchild = int((started.workspace / "grandchild.pid").read_text())

    stopped = await client.stop("agent_1")

    assert stopped.status is AgentStatus.STOPPED
    assert started.pid is not None and not is_alive(started.pid, None)
    await process_exit(grandchild)  # signalled with its group; would time out otherwise


async def test_stop_kills_an_agent_that_ignores_sigterm(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    server = DaemonServer(make_supervisor(harness_home, stop_timeout=0.3), harness_home)
    await server.start()
    try:
        async with DaemonClient.connect() as client:
            agent = await start_ready(client, make_spec("stubborn"))

            stopped = await client.stop(agent.name)

        assert stopped.status is AgentStatus.STOPPED
        assert stopped.reason == "stopped by user"
        assert agent.pid is not None and not is_alive(agent.pid, None)
    finally:
        await server.close()


async def test_stopping_a_finished_agent_is_refused(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    frames = None
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        await client.start(make_spec("crash"))
        await event_where(frames, lambda e: e.agent.status is AgentStatus.FAILED)

    with pytest.raises(DaemonError, match="agent_1 is not running"):
        await client.stop("agent_1")


async def test_remove_is_refused_while_running_and_allowed_after(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await client.start(make_spec("idle"))

    with pytest.raises(DaemonError, match="agent_1 is running; stop it before removing it"):
        await client.remove("agent_1")
    await client.stop("agent_1")
    await client.remove("agent_1")

    assert await client.list_agents() == []
    assert agent.workspace.is_dir()  # the workspace outlives the registry entry


async def test_numbers_are_never_reused(client: DaemonClient, make_spec: MakeSpec) -> None:
    spec = make_spec("idle")
    await client.start(spec)
    await client.stop("agent_1")
    await client.remove("agent_1")

    again = await client.start(spec)

    assert again.name == "agent_2"


async def test_a_second_live_agent_on_one_workspace_is_refused(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    spec = make_spec("idle")
    first = await client.start(spec)

    busy = f"agent_1 is already running on workspace {first.workspace}"
    with pytest.raises(DaemonError, match=re.escape(busy)):
        await client.start(spec)
    assert [agent.name for agent in await client.list_agents()] == ["agent_1"]


async def test_set_auto_accept_writes_the_workspace_and_answers_the_agent(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await client.start(make_spec("idle"))
    assert agent.auto_accept is False

    switched = await client.set_auto_accept("agent_1", True)

    assert switched.auto_accept is True
    info = read_model(WorkspaceFiles(agent.workspace).info, WorkspaceInfo)
    assert info.auto_accept == AutoAcceptRules.on()

    rules = parse_rules("issue_closure=ask", switched.auto_accept_rules)
    ruled = await client.set_auto_accept("agent_1", rules)

    assert ruled.auto_accept_rules.compact() == "AUTO except issue_closure"
    info = read_model(WorkspaceFiles(agent.workspace).info, WorkspaceInfo)
    assert (info.auto_accept, info.auto_accept_serial) == (rules, 2)
    signed = sign_auto_accept(load_key(), agent.workspace, rules, 2)
    assert info.auto_accept_mac == signed


async def test_shutdown_stops_the_daemon_but_not_the_agents(
    daemon: DaemonServer, client: DaemonClient, make_spec: MakeSpec, harness_home: Path
) -> None:
    agent = await client.start(make_spec("idle"))
    assert daemon_running() is not None

    await client.shutdown()

    assert daemon_running() is None
    assert not socket_path(harness_home).exists()
    assert not daemon_status_path(harness_home).exists()
    assert agent.pid is not None and is_alive(agent.pid, None)


async def test_an_agent_that_dies_without_exit_status_is_failed(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        await client.start(make_spec("crash"))
        event = await event_where(frames, lambda e: e.agent.status is not AgentStatus.RUNNING)

    assert event.agent.status is AgentStatus.FAILED
    assert event.agent.reason == "agent process died without an exit status"


async def test_an_agent_killed_outside_the_daemon_is_failed(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    agent = await start_ready(client, make_spec("idle"))
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        assert agent.pid is not None
        os.kill(agent.pid, signal.SIGKILL)
        event = await event_where(frames, lambda e: e.agent.status is not AgentStatus.RUNNING)

    assert event.agent.status is AgentStatus.FAILED


async def test_a_corrupted_workspace_file_shows_the_agent_failed(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        await snapshot(frames)
        await client.start(make_spec("corrupt"))
        event = await event_where(frames, lambda e: e.agent.status is AgentStatus.FAILED)

    assert ".agent_state.json: not valid JSON" in event.agent.reason
    assert [agent.status for agent in await client.list_agents()] == [AgentStatus.FAILED]


async def test_an_agent_killed_outright_leaves_no_process_behind(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    started = await start_ready(client, make_spec("family"))
    grandchild = int((started.workspace / "grandchild.pid").read_text())
    assert started.pid is not None

    os.kill(started.pid, signal.SIGKILL)  # no chance to clean up after itself

    await process_exit(grandchild, timeout=5.0)  # ended by the daemon with the agent's group

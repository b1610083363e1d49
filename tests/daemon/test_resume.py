"""``resume`` and ``start --fresh``, and the refusal of a second run on a used workspace.

Real agent processes (the fake agent) against an in-process daemon.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.procs import is_alive
from common.atomic import read_model
from common.errors import DaemonError
from common.paths import WorkspaceFiles, daemon_state_path
from common.schemas.agent_state import AgentState, Phase
from common.schemas.daemon_state import AgentStatus, DaemonState
from common.schemas.protocol import AgentInfo
from common.schemas.workspace import WorkspaceInfo

from .conftest import MakeSpec
from .helpers import event_where, snapshot, start_ready


async def status_reached(name: str, status: AgentStatus) -> AgentInfo:
    """The agent once it has ``status`` (it may have it already)."""
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        for info in await snapshot(frames):
            if info.name == name and info.status is status:
                return info
        event = await event_where(
            frames, lambda e: e.agent.name == name and e.agent.status is status
        )
        return event.agent


async def phase_reached(name: str, phase: Phase) -> AgentInfo:
    """The agent once its workspace reports ``phase`` while it runs."""
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        for info in await snapshot(frames):
            if info.name == name and info.phase is phase and info.status is AgentStatus.RUNNING:
                return info
        event = await event_where(
            frames,
            lambda e: (
                e.agent.name == name
                and e.agent.phase is phase
                and e.agent.status is AgentStatus.RUNNING
            ),
        )
        return event.agent


def registry(home: Path) -> DaemonState:
    return read_model(daemon_state_path(home), DaemonState)


async def test_a_failed_agent_resumes_under_its_name_in_the_phase_it_failed_in(
    client: DaemonClient, make_spec: MakeSpec, harness_home: Path
) -> None:
    started = await client.start(make_spec("fail"))
    failed = await status_reached("agent_1", AgentStatus.FAILED)
    assert failed.phase is Phase.FAILED

    resumed = await client.resume("agent_1")
    running = await phase_reached("agent_1", Phase.CODING)

    assert resumed.name == running.name == "agent_1"
    assert resumed.pid != started.pid and resumed.pid is not None and is_alive(resumed.pid, None)
    assert resumed.log_file.exists()  # a new log, or the same one appended to within a second
    assert running.reason == "", "the old failure reason is not replayed"
    [record] = registry(harness_home).agents
    assert (record.name, record.pid, record.workspace) == (
        "agent_1",
        resumed.pid,
        started.workspace,
    )
    state = read_model(WorkspaceFiles(started.workspace).state, AgentState)
    assert (state.history[-1].from_phase, state.history[-1].to_phase) == (
        Phase.FAILED,
        Phase.CODING,
    )
    assert (started.workspace / "resumed.log").read_text() == f"{resumed.pid}\n"


async def test_a_stopped_agent_resumes_as_it_was(
    client: DaemonClient, make_spec: MakeSpec, harness_home: Path
) -> None:
    await start_ready(client, make_spec("idle"))
    assert (await client.stop("agent_1")).status is AgentStatus.STOPPED

    resumed = await client.resume("agent_1")

    assert resumed.status is AgentStatus.RUNNING
    [record] = registry(harness_home).agents
    assert record.stopped_by_user is False, "a later death must not read as a user stop"
    with pytest.raises(DaemonError, match=r"^agent_1 is already running$"):
        await client.resume("agent_1")


async def test_a_done_agent_is_not_resumed(client: DaemonClient, make_spec: MakeSpec) -> None:
    agent = await start_ready(client, make_spec("idle"))
    assert agent.pid is not None
    signal_done(agent.pid)
    await status_reached("agent_1", AgentStatus.DONE)

    with pytest.raises(DaemonError, match=r"agent_1 is done; nothing to resume"):
        await client.resume("agent_1")


def signal_done(pid: int) -> None:
    """Ask the fake agent to finish (exit file ``done``)."""
    import os

    os.kill(pid, signal.SIGUSR2)


async def test_a_second_run_of_a_failed_spec_is_refused_and_leaves_the_record_alone(
    client: DaemonClient, make_spec: MakeSpec, harness_home: Path
) -> None:
    spec = make_spec("fail")
    first = await client.start(spec)
    await status_reached("agent_1", AgentStatus.FAILED)
    before = registry(harness_home)

    expected = (
        f"fail.md already has a failed run in agent_1 (workspace {first.workspace}); "
        "run `harness resume agent_1`, or `harness run --fresh` for a new workspace"
    )
    with pytest.raises(DaemonError, match=f"^{re.escape(expected)}$"):
        await client.start(spec)

    assert registry(harness_home) == before
    assert (await client.status("agent_1")).status is AgentStatus.FAILED


async def test_a_second_run_of_a_finished_spec_offers_only_fresh(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    spec = make_spec("idle")
    agent = await start_ready(client, spec)
    assert agent.pid is not None
    signal_done(agent.pid)
    await status_reached("agent_1", AgentStatus.DONE)

    with pytest.raises(DaemonError, match=r"already has a finished run in agent_1") as refused:
        await client.start(spec)
    assert "harness resume" not in str(refused.value)
    assert (await client.status("agent_1")).status is AgentStatus.DONE


async def test_a_failed_workspace_without_a_record_is_refused(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    spec = make_spec("fail")
    first = await client.start(spec)
    await status_reached("agent_1", AgentStatus.FAILED)
    await client.remove("agent_1")

    expected = (
        f"fail.md already has a failed run in workspace {first.workspace} (no agent record); "
        "run `harness run --fresh` for a new workspace"
    )
    with pytest.raises(DaemonError, match=f"^{re.escape(expected)}$"):
        await client.start(spec)


async def test_fresh_starts_in_a_new_workspace_and_keeps_the_old_run(
    client: DaemonClient, make_spec: MakeSpec, harness_home: Path
) -> None:
    spec = make_spec("fail")
    first = await client.start(spec)
    await status_reached("agent_1", AgentStatus.FAILED)
    old_record = registry(harness_home).agents[0]
    old_state = WorkspaceFiles(first.workspace).state.read_bytes()

    second = await client.start(spec, fresh=True)

    assert second.name == "agent_2"
    assert second.workspace == first.workspace.with_name(f"{first.workspace.name}-2")
    info = read_model(WorkspaceFiles(second.workspace).info, WorkspaceInfo)
    assert info.feature_branch == "feature/fail-2", "a fresh run gets a branch of its own"
    await status_reached("agent_2", AgentStatus.FAILED)
    assert registry(harness_home).agents[0] == old_record
    assert WorkspaceFiles(first.workspace).state.read_bytes() == old_state
    assert (await client.status("agent_1")).workspace == first.workspace

    # The newest workspace is the one a plain start (and its refusal) looks at.
    with pytest.raises(DaemonError, match=re.escape(f"in agent_2 (workspace {second.workspace})")):
        await client.start(spec)
    third = await client.start(spec, fresh=True)
    assert third.workspace.name.endswith("-3")


async def test_a_plain_start_on_a_busy_newest_workspace_is_refused(
    client: DaemonClient, make_spec: MakeSpec
) -> None:
    spec = make_spec("idle")
    await client.start(spec)
    fresh = await client.start(spec, fresh=True)

    busy = f"agent_2 is already running on workspace {fresh.workspace}"
    with pytest.raises(DaemonError, match=re.escape(busy)):
        await client.start(spec)

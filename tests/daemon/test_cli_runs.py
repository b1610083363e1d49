"""The ``harness`` commands of retry and cleanup, as real processes against a daemon process.

The daemon runs the fake agent (``--agent-command``), so each run takes milliseconds.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.daemon.client import DaemonClient
from agent.daemon.lifecycle import daemon_running, start_daemon
from common.schemas.daemon_state import AgentStatus, DaemonStatusFile
from common.schemas.protocol import AgentInfo
from common.schemas.spec import AgentSpec
from tui.services.link import DaemonLink

from .conftest import FAKE_AGENT, REPO_ROOT, MakeSpec
from .helpers import WAIT, event_where, snapshot

DAEMON_ARGS = ["--agent-command", f"{sys.executable} {FAKE_AGENT} {{workspace}}"]


@pytest.fixture
async def daemon_process(harness_home: Path) -> AsyncIterator[DaemonStatusFile]:
    """A daemon process running the fake agent; killed when the test ends."""
    status = await start_daemon(daemon_args=DAEMON_ARGS)
    yield status
    running = daemon_running()
    if running is not None:
        os.kill(running.pid, signal.SIGKILL)


async def harness(*args: str) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` in a process of its own (its event loop is not ours)."""
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "agent.control", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )


def specs_file(spec: AgentSpec, tmp_path: Path) -> Path:
    path = tmp_path / f"{spec.spec_file.stem}.json"
    path.write_text(json.dumps([json.loads(spec.model_dump_json())]))
    return path


async def status_reached(name: str, status: AgentStatus) -> AgentInfo:
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        for info in await snapshot(frames):
            if info.name == name and info.status is status:
                return info
        event = await event_where(
            frames, lambda e: e.agent.name == name and e.agent.status is status
        )
        return event.agent


async def running_with_phase(name: str) -> AgentInfo:
    """The agent once it runs and reported its phase (its signal handlers are set then)."""
    async with DaemonClient.connect() as watcher:
        frames = watcher.subscribe()
        for info in await snapshot(frames):
            if info.name == name and info.phase is not None and info.status is AgentStatus.RUNNING:
                return info
        event = await event_where(
            frames,
            lambda e: (
                e.agent.name == name
                and e.agent.phase is not None
                and e.agent.status is AgentStatus.RUNNING
            ),
        )
        return event.agent


async def test_a_failed_spec_is_refused_then_resumed_or_run_fresh(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec, tmp_path: Path
) -> None:
    specs = specs_file(make_spec("fail"), tmp_path)
    first = await harness("run", "--specs", f"@{specs}")
    assert first.returncode == 0, first.stderr
    failed = await status_reached("agent_1", AgentStatus.FAILED)

    again = await harness("run", "--specs", f"@{specs}")

    assert again.returncode == 1
    assert again.stderr == (
        f"error: fail.md already has a failed run in agent_1 (workspace {failed.workspace}); "
        "run `harness resume agent_1`, or `harness run --fresh` for a new workspace\n"
    )

    resumed = await harness("resume", "agent_1")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith(f"agent_1 resumed in {failed.workspace}\n")
    await running_with_phase("agent_1")

    fresh = await harness("run", "--fresh", "--specs", f"@{specs}")
    assert fresh.returncode == 0, fresh.stderr
    assert fresh.stdout.startswith("agent_2 started: fail.md")
    agent_2 = await status_reached("agent_2", AgentStatus.FAILED)
    assert agent_2.workspace.name == f"{failed.workspace.name}-2"

    listed = await harness("list")
    header, *rows = listed.stdout.splitlines()
    assert header.split() == ["AGENT", "STATUS", "EXIT", "MODE", "PHASE", "SPEC"]
    assert [row.split()[:3] for row in rows] == [
        ["agent_1", "running", "continuing"],
        ["agent_2", "failed", "failed"],
        ["↳", "broke"],
    ]
    as_json = json.loads((await harness("list", "--json")).stdout)
    assert [(a["name"], a["status"], a["reason"]) for a in as_json] == [
        ("agent_1", "running", ""),
        ("agent_2", "failed", "broke"),
    ]
    one = json.loads((await harness("status", "agent_2", "--json")).stdout)
    assert (one["name"], one["exit_state"], one["reason"]) == ("agent_2", "failed", "broke")
    assert one["machine_limits"] is None  # the fake agent records none


async def test_remove_finished_clears_the_ended_agents_only(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec, tmp_path: Path
) -> None:
    for mode in ("fail", "idle", "family"):
        started = await harness("run", "--specs", f"@{specs_file(make_spec(mode), tmp_path)}")
        assert started.returncode == 0, started.stderr
    await status_reached("agent_1", AgentStatus.FAILED)
    await running_with_phase("agent_3")
    assert (await harness("stop", "agent_3")).returncode == 0

    removed = await harness("remove", "--finished")

    assert (removed.returncode, removed.stdout) == (0, "agent_1 removed\nagent_3 removed\n")
    listed = (await harness("list")).stdout.splitlines()
    assert [row.split()[0] for row in listed[1:]] == ["agent_2"]
    nothing = await harness("remove", "--finished")
    assert nothing.stdout == "no ended agents to remove\n"
    both = await harness("remove", "agent_2", "--finished")
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


async def test_logs_prints_the_tail_and_follow_ends_with_the_agent(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec, tmp_path: Path
) -> None:
    assert (
        await harness("run", "--specs", f"@{specs_file(make_spec('idle'), tmp_path)}")
    ).returncode == 0
    agent = await running_with_phase("agent_1")
    with agent.log_file.open("a") as log:
        log.writelines(f"line {n}\n" for n in range(1, 201))

    tail = await harness("logs", "agent_1", "-n", "2")
    assert tail.stdout == "line 199\nline 200\n"
    assert (await harness("logs", "agent_1")).stdout.splitlines()[0] == "line 101"

    following = asyncio.create_task(harness("logs", "agent_1", "-f", "-n", "1"))
    with agent.log_file.open("a") as log:
        log.write("last words\n")
    assert agent.pid is not None
    os.kill(agent.pid, signal.SIGUSR2)  # the fake agent finishes: done
    followed = await asyncio.wait_for(following, WAIT)

    assert followed.returncode == 0, followed.stderr
    assert followed.stdout.endswith("last words\n")


async def test_the_tuis_run_again_starts_the_reported_spec_in_a_new_workspace(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec, tmp_path: Path
) -> None:
    specs = specs_file(make_spec("fail"), tmp_path)
    assert (await harness("run", "--specs", f"@{specs}")).returncode == 0
    failed = await status_reached("agent_1", AgentStatus.FAILED)
    assert failed.spec is not None, "the daemon reports the spec it runs"

    again = await DaemonLink(autostart=False).start(failed.spec, fresh=True)  # the TUI's "g"

    assert again.name == "agent_2"
    assert again.spec == failed.spec
    assert again.workspace.name == f"{failed.workspace.name}-2"


async def test_a_failure_under_wait_is_one_line(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec, tmp_path: Path
) -> None:
    specs = specs_file(make_spec("fail"), tmp_path)

    waited = await harness("run", "--wait", "--specs", f"@{specs}")

    assert waited.returncode == 1
    assert [line for line in waited.stdout.splitlines() if "failed" in line] == [
        "agent_1: failed — broke"
    ]


@pytest.mark.skipif(
    "PYTEST_XDIST_WORKER" in os.environ,
    reason="in two whole-suite runs under xdist (3 workers, 2 cores) the interrupted "
    "`run --wait` had not exited 60 s after SIGINT, while it passes alone and with its "
    "folder under xdist: not understood yet; `scripts/test.sh -n 0` runs it",
)
async def test_ctrl_c_on_wait_says_the_agent_keeps_running_and_how_to_follow_or_stop_it(
    daemon_process: DaemonStatusFile, make_spec: MakeSpec, tmp_path: Path
) -> None:
    specs = specs_file(make_spec("idle"), tmp_path)
    waiting = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "agent.control",
        "run",
        "--wait",
        "--specs",
        f"@{specs}",
        cwd=REPO_ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert waiting.stdout is not None
    async with asyncio.timeout(WAIT):
        while "agent_1: running — coding" not in (await waiting.stdout.readline()).decode():
            pass

    waiting.send_signal(signal.SIGINT)
    # A deadline, not a figure: the suite's other workers may load the machine.
    _, stderr = await asyncio.wait_for(waiting.communicate(), 4 * WAIT)

    assert waiting.returncode == 130
    assert stderr.decode() == (
        "interrupted: agent_1 keeps running; `harness logs agent_1 -f` follows it, "
        "`harness stop agent_1` stops it\n"
    )
    async with DaemonClient.connect() as client:
        assert (await client.status("agent_1")).status is AgentStatus.RUNNING

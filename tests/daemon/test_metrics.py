"""Metrics are read from the agents' own files: each family says what the files say."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from agent.daemon.agent_view import build_agent_info
from agent.daemon.metrics import exposition, exposition_from_home
from agent.daemon.metrics_facts import FactsCache
from agent.daemon.metrics_server import MetricsAddress, MetricsServer, metrics_address
from agent.daemon.procs import start_ticks
from common.atomic import write_model
from common.errors import DaemonError
from common.paths import WorkspaceFiles, daemon_state_path
from common.schemas.agent_state import AgentState, Phase
from common.schemas.base import utc_now
from common.schemas.checkpoint import (
    CheckpointFile,
    CheckpointLog,
    Decision,
    IssueRef,
    MrPhaseTransitionCheckpoint,
    MrPhaseTransitionContext,
)
from common.schemas.daemon_state import AgentRecord, DaemonState
from common.schemas.exit_status import AgentExit
from common.schemas.gitlab_milestone import GitLabApiStats, GitLabMilestone
from common.schemas.policy_counts import DenialClass, PolicyCounts
from common.schemas.sandbox_layout import SandboxLayout
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from common.schemas.trace import GateRun, SessionEnd

from .conftest import REPO_ROOT, MakeSpec

ENDED_PID = 4_000_000
"""The pid the finished agents ran as (its start ticks match no live process)."""
HOSTILE = 'x"} 1\nharness_agents{status="forged'
"""An issue title that tries to close a label and write a sample of its own."""


def samples(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of the exposition, by name and sorted labels."""
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text.decode())
        for sample in family.samples
    }


def value(text: bytes, name: str, **labels: str) -> float:
    return samples(text)[(name, tuple(sorted(labels.items())))]


def checkpoint(
    number: int, waited_s: float, *, decided: bool = True
) -> MrPhaseTransitionCheckpoint:
    opened = utc_now() - timedelta(hours=1)
    return MrPhaseTransitionCheckpoint(
        id=f"mr_phase_transition-{number}",
        status="decided" if decided else "pending",
        created_at=opened,
        what_happened=[HOSTILE],
        to_decide="open the merge request?",
        if_approved="the merge request is opened",
        if_rejected="the run pauses",
        context=MrPhaseTransitionContext(
            closed_issues=[IssueRef(iid=1, title=HOSTILE)], open_issues=[]
        ),
        decision=Decision(
            approved=True, decided_by="cli:test", decided_at=opened + timedelta(seconds=waited_s)
        )
        if decided
        else None,
    )


def workspace(spec: AgentSpec, name: str) -> WorkspaceFiles:
    """A finished agent's workspace with one fact of every kind."""
    files = WorkspaceFiles(spec.project_dir / ".claude-agent" / name)
    files.root.mkdir(parents=True)
    write_model(files.exit_status, AgentExit(pid=ENDED_PID, outcome="done", exit_code=0))
    write_model(
        files.state,
        AgentState(
            phase=Phase.DONE,
            spend=Spend(tokens_in=1200, tokens_out=300, cache_read=200, cost_usd=0.25, sessions=3),
            sandbox_layout=SandboxLayout(left_out=["/root: the home", "/: the root"]),
        ),
    )
    write_model(
        files.checkpoint_log,
        CheckpointLog(entries=[checkpoint(1, 0.5), checkpoint(2, 120.0), checkpoint(3, 7200.0)]),
    )
    write_model(
        files.policy_counts,
        PolicyCounts(
            allowed=10,
            denied=4,
            denied_by_class={DenialClass.COMMAND_NETWORK: 2, DenialClass.OUTSIDE_PROJECT: 1},
            forgeries=1,
            endpoint_refused=2,
            host_refused=3,
        ),
    )
    write_model(
        files.gitlab_milestone,
        GitLabMilestone(
            api_url="http://gitlab.invalid/api/v4",
            project_path="g/p",
            project_id=1,
            milestone_id=1,
            title=HOSTILE,
            stats=GitLabApiStats(
                requests=40, retries=3, failed={"server_error": 2, "timeout": 1, "auth": 1}
            ),
        ),
    )
    files.trace.write_text(
        "".join(
            event.model_dump_json() + "\n"
            for event in (
                SessionEnd(session=1, label=HOSTILE, duration_ms=2500),
                SessionEnd(session=2, label="coding", duration_ms=400_000, error="stopped"),
                GateRun(command="pytest", exit_code=0, summary="3 passed", duration_s=1.0),
                GateRun(command="pytest", exit_code=1, summary="1 failed", duration_s=1.0),
                GateRun(
                    command="pytest", exit_code=0, summary="3 passed", duration_s=0, reused=True
                ),
            )
        )
        + '{"type":"session_end","torn'  # a kill mid-write: left for a later scrape
    )
    return files


def ended(name: str, spec: AgentSpec, files: WorkspaceFiles) -> AgentRecord:
    """The registry's record of a finished agent that ran in ``files``."""
    return AgentRecord(
        name=name,
        spec=spec,
        workspace=files.root,
        log_file=files.root / "log",
        pid=ENDED_PID,
        pid_start_ticks=1,
    )


def register(home: Path, *records: AgentRecord) -> None:
    write_model(
        daemon_state_path(home), DaemonState(agents=list(records), next_number=len(records) + 1)
    )


def test_every_family_says_what_the_workspace_files_say(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    spec = make_spec("metrics")
    files = workspace(spec, "done-1")
    register(
        harness_home,
        ended("agent_1", spec, files),
    )

    text = exposition_from_home(harness_home)

    assert value(text, "harness_agents", status="done", exit_state="complete") == 1
    assert value(text, "harness_agents", status="running", exit_state="continuing") == 0
    wait = {"agent": "agent_1", "type": "mr_phase_transition"}
    assert value(text, "harness_checkpoint_wait_seconds_count", **wait) == 3
    assert value(text, "harness_checkpoint_wait_seconds_sum", **wait) == 7320.5
    assert value(text, "harness_checkpoint_wait_seconds_bucket", le="1.0", **wait) == 1
    assert value(text, "harness_checkpoint_wait_seconds_bucket", le="300.0", **wait) == 2
    assert value(text, "harness_checkpoint_wait_seconds_bucket", le="+Inf", **wait) == 3
    assert value(text, "harness_sessions_total", agent="agent_1", outcome="ok") == 1
    assert value(text, "harness_sessions_total", agent="agent_1", outcome="error") == 1
    assert value(text, "harness_session_duration_seconds_sum", agent="agent_1") == 402.5
    assert value(text, "harness_session_duration_seconds_bucket", agent="agent_1", le="5.0") == 1
    assert value(text, "harness_tokens_total", agent="agent_1", kind="input") == 1200
    assert value(text, "harness_tokens_total", agent="agent_1", kind="cache_read") == 200
    assert value(text, "harness_tokens_total", agent="agent_1", kind="output") == 300
    assert value(text, "harness_cost_usd_total", agent="agent_1") == 0.25
    assert value(text, "harness_gate_runs_total", agent="agent_1", result="passed") == 1
    assert value(text, "harness_gate_runs_total", agent="agent_1", result="failed") == 1
    assert value(text, "harness_gate_reuses_total", agent="agent_1") == 1
    denials = {"agent": "agent_1"}
    assert (
        value(text, "harness_policy_denials_total", reason_class="command_network", **denials) == 2
    )
    assert (
        value(text, "harness_policy_denials_total", reason_class="outside_project", **denials) == 1
    )
    assert value(text, "harness_policy_denials_total", reason_class="unclassified", **denials) == 1
    assert value(text, "harness_policy_denials_total", reason_class="command_git", **denials) == 0
    assert value(text, "harness_policy_allowed_total", agent="agent_1") == 10
    assert value(text, "harness_forgeries_rejected_total", agent="agent_1") == 1
    assert value(text, "harness_tracker_requests_total", agent="agent_1") == 40
    assert value(text, "harness_tracker_retries_total", agent="agent_1") == 3
    assert value(text, "harness_tracker_faults_total", agent="agent_1", kind="server_error") == 2
    assert value(text, "harness_tracker_faults_total", agent="agent_1", kind="rate_limited") == 0
    refusals = {"agent": "agent_1", "kind": "model_endpoint"}
    assert value(text, "harness_sandbox_refusals_total", **refusals) == 2
    hosts = {"agent": "agent_1", "kind": "host"}
    assert value(text, "harness_sandbox_refusals_total", **hosts) == 3
    assert value(text, "harness_sandbox_folders_left_out", agent="agent_1") == 2
    # Nothing the model wrote is a label: only agent names and fixed classes.
    assert "forged" not in text.decode() and "coding" not in text.decode()


def test_a_waiting_checkpoint_counts_while_its_agent_lives(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    spec = make_spec("waiting")
    files = WorkspaceFiles(spec.project_dir / ".claude-agent" / "waiting")
    files.root.mkdir(parents=True)
    write_model(files.checkpoint, CheckpointFile(checkpoint(4, 0, decided=False)))
    alive = {"pid": os.getpid(), "pid_start_ticks": start_ticks(os.getpid())}
    register(
        harness_home,
        ended("agent_1", spec, files),
        AgentRecord(
            name="agent_2", spec=spec, workspace=files.root, log_file=files.root / "l", **alive
        ),
    )

    text = exposition_from_home(harness_home)

    waiting = "harness_checkpoints_waiting"
    assert value(text, waiting, agent="agent_2", type="mr_phase_transition") == 1
    assert value(text, waiting, agent="agent_2", type="issue_closure") == 0
    assert value(text, waiting, agent="agent_1", type="mr_phase_transition") == 0
    assert value(text, "harness_agents", status="waiting", exit_state="continuing") == 1
    assert value(text, "harness_agents", status="failed", exit_state="failed") == 1


def test_the_trace_is_read_on_from_where_the_last_scrape_stopped(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    spec = make_spec("trace")
    files = workspace(spec, "trace-1")
    register(
        harness_home,
        ended("agent_1", spec, files),
    )
    info = build_agent_info(
        ended("agent_1", spec, files),
        alive=False,
    )
    cache = FactsCache()
    assert len(cache.facts(info).trace.session_seconds) == 2

    with files.trace.open("a") as trace:  # the torn line ends, and one more session
        trace.write('"}\n' + SessionEnd(session=3, label="x", duration_ms=1000).model_dump_json())
        trace.write("\n")
    again = cache.facts(info).trace

    assert again.session_seconds == [2.5, 400.0, 1.0]
    assert (
        value(exposition([info], cache), "harness_sessions_total", agent="agent_1", outcome="ok")
        == 2
    )

    files.trace.write_text(
        SessionEnd(session=1, label="x", duration_ms=10).model_dump_json() + "\n"
    )
    assert cache.facts(info).trace.session_seconds == [0.01]  # replaced: read anew


def test_without_agents_every_family_is_still_described(harness_home: Path) -> None:
    families = {
        f.name for f in text_string_to_metric_families(exposition_from_home(harness_home).decode())
    }

    assert families >= {
        "harness_agents",
        "harness_checkpoints_waiting",
        "harness_checkpoint_wait_seconds",
        "harness_sessions",
        "harness_session_duration_seconds",
        "harness_tokens",
        "harness_cost_usd",
        "harness_gate_runs",
        "harness_policy_denials",
        "harness_tracker_requests",
        "harness_tracker_retries",
        "harness_tracker_faults",
        "harness_sandbox_refusals",
    }


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"HARNESS_METRICS_ADDR": " "}, None),
        ({"HARNESS_METRICS_ADDR": "9464"}, MetricsAddress("127.0.0.1", 9464)),
        ({"HARNESS_METRICS_ADDR": "127.0.0.1:9464"}, MetricsAddress("127.0.0.1", 9464)),
        ({"HARNESS_METRICS_ADDR": "localhost:0"}, MetricsAddress("localhost", 0)),
        ({"HARNESS_METRICS_ADDR": "[::1]:9464"}, MetricsAddress("::1", 9464)),
        (
            {"HARNESS_METRICS_ADDR": "0.0.0.0:9464", "HARNESS_METRICS_REMOTE": "1"},
            MetricsAddress("0.0.0.0", 9464),
        ),
    ],
)
def test_the_address_is_loopback_unless_asked_otherwise(
    environ: dict[str, str], expected: MetricsAddress | None
) -> None:
    assert metrics_address(environ) == expected


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("0.0.0.0:9464", "HARNESS_METRICS_REMOTE=1"),
        ("metrics.example.org:9464", "not a loopback address"),
        ("127.0.0.1:http", "is not host:port"),
        ("127.0.0.1:70000", "is not host:port"),
        (":", "is not host:port"),
    ],
)
def test_a_bad_or_remote_address_is_one_line(raw: str, says: str) -> None:
    with pytest.raises(DaemonError, match=says) as refused:
        metrics_address({"HARNESS_METRICS_ADDR": raw})

    assert "\n" not in str(refused.value)


async def request(port: int, head: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head)
    await writer.drain()
    answer = await reader.read()
    writer.close()
    return answer


async def test_the_server_answers_get_metrics_and_nothing_else(
    harness_home: Path, make_spec: MakeSpec
) -> None:
    spec = make_spec("served")
    files = workspace(spec, "served-1")
    info = build_agent_info(
        ended("agent_7", spec, files),
        alive=False,
    )
    server = MetricsServer(lambda: [info], lambda: 5)
    port = await server.start(MetricsAddress("127.0.0.1", 0))
    try:
        scraped = await request(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        missing = await request(port, b"GET /other HTTP/1.1\r\n\r\n")
        posted = await request(port, b"POST /metrics HTTP/1.1\r\n\r\n")
    finally:
        await server.close()

    head, _, body = scraped.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK")
    assert b"Content-Type: text/plain; version=0.0.4" in head
    assert value(body, "harness_daemon_refused_connections_total") == 5
    assert value(body, "harness_tokens_total", agent="agent_7", kind="input") == 1200
    assert missing.startswith(b"HTTP/1.1 404")
    assert posted.startswith(b"HTTP/1.1 405")


def test_prometheus_client_is_loaded_only_where_metrics_are_exposed() -> None:
    code = (
        "import sys, agent.daemon.__main__, agent.control.main; "
        "sys.exit('prometheus_client' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=False)

    assert done.returncode == 0


def test_a_daemon_asked_to_serve_metrics_off_loopback_does_not_start(harness_home: Path) -> None:
    environ = {**os.environ, "HARNESS_HOME": str(harness_home)}
    environ["HARNESS_METRICS_ADDR"] = "0.0.0.0:9464"
    done = subprocess.run(
        [sys.executable, "-m", "agent.daemon"],
        cwd=REPO_ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert "is not a loopback address" in done.stderr and "HARNESS_METRICS_REMOTE=1" in done.stderr
    assert not (harness_home / "daemon.sock").exists()

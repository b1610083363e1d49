"""A demo run seen the operator's way: Prometheus metrics and OpenTelemetry traces.

One real run (``harness demo --auto-accept --wait``) with ``OTEL_EXPORTER_OTLP_ENDPOINT``
pointing at a local receiver and ``HARNESS_METRICS_ADDR`` set: the receiver decodes spans
of every kind, ``harness metrics`` (no daemon needed) and the daemon's ``/metrics`` give
every family, promtool finds nothing to fault, and no process the daemon started
(the agent, its sandboxes, the model's commands, the gates) ever had an ``OTEL_*``
variable in its environment.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from common.atomic import read_model_or_none
from common.paths import daemon_status_path
from common.schemas.daemon_state import DaemonStatusFile
from tests.e2e.otlp_receiver import Received, otlp_receiver

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
HARNESS = REPO / ".venv" / "bin" / "harness"
FAMILIES = {
    "harness_agents",
    "harness_checkpoints_waiting",
    "harness_checkpoint_wait_seconds",
    "harness_sessions",
    "harness_session_duration_seconds",
    "harness_tokens",
    "harness_cost_usd",
    "harness_gate_runs",
    "harness_gate_reuses",
    "harness_policy_allowed",
    "harness_policy_denials",
    "harness_forgeries_rejected",
    "harness_tracker_requests",
    "harness_tracker_retries",
    "harness_tracker_faults",
    "harness_sandbox_refusals",
    "harness_sandbox_folders_left_out",
}


@dataclass
class Observed:
    """What the demo run showed: its spans, both expositions, and any leak of the nonce."""

    received: Received
    nonce: str
    cli_metrics: str
    daemon_metrics: str
    leaks: list[str] = field(default_factory=list)
    scraped: list[dict[str, Any]] | None = None
    """What a real Prometheus scraped from the daemon (``harness_sessions_total``);
    ``None`` without Debian's prometheus."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def prometheus_scrape(metrics_port: int, folder: Path) -> list[dict[str, Any]] | None:
    """Run a real Prometheus that scrapes the daemon each second; what its query API then
    gives for ``harness_sessions_total`` (``None`` when Debian's prometheus is absent)."""
    binary = shutil.which("prometheus")
    if binary is None:
        return None
    config = folder / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s}\n"
        "scrape_configs:\n"
        f"  - {{job_name: harness, static_configs: [{{targets: ['127.0.0.1:{metrics_port}']}}]}}\n"
    )
    port = free_port()
    server = subprocess.Popen(
        [
            binary,
            f"--config.file={config}",
            f"--storage.tsdb.path={folder / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=(folder / "prometheus.log").open("wb"),
    )
    query = f"http://127.0.0.1:{port}/api/v1/query?query=harness_sessions_total"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(query, timeout=5) as answer:
                    result: list[dict[str, Any]] = json.load(answer)["data"]["result"]
            except OSError:
                result = []
            if result:
                return result
            time.sleep(0.5)
        raise AssertionError((folder / "prometheus.log").read_text()[-2000:])
    finally:
        server.terminate()
        server.wait(timeout=30)


def ancestors(pid: int) -> set[int]:
    """The pids above ``pid`` (its parent, theirs…), as far as /proc tells."""
    found: set[int] = set()
    while pid > 1 and pid not in found:
        found.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    found.discard(pid)
    return found | {pid}


def watch_for_leaks(nonce: bytes, home: Path, stop: threading.Event, leaks: list[str]) -> None:
    """Every process under the daemon whose environment holds ``nonce`` is a leak."""
    daemon: int | None = None
    while not stop.wait(0.05):
        if daemon is None:
            status = read_model_or_none(daemon_status_path(home), DaemonStatusFile)
            daemon = status.pid if status is not None else None
            continue
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == daemon:
                continue
            try:
                if nonce not in (entry / "environ").read_bytes():
                    continue
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")[:120]
            except OSError:
                continue
            if daemon in ancestors(int(entry.name)):
                leaks.append(f"{entry.name}: {command.decode(errors='replace')}")


@pytest.fixture(scope="module")
def observed() -> Iterator[Observed]:
    home = Path(tempfile.mkdtemp(prefix="ho", dir="/tmp"))
    nonce = f"h4-{uuid.uuid4().hex}"
    port = free_port()
    with otlp_receiver() as (url, received):
        env = {
            **os.environ,
            "HARNESS_HOME": str(home),
            "HARNESS_METRICS_ADDR": f"127.0.0.1:{port}",
            "OTEL_EXPORTER_OTLP_ENDPOINT": url,
            "OTEL_RESOURCE_ATTRIBUTES": f"harness.test={nonce}",
            "OTEL_BSP_SCHEDULE_DELAY": "200",
        }
        leaks: list[str] = []
        stop = threading.Event()
        watcher = threading.Thread(
            target=watch_for_leaks, args=(nonce.encode(), home, stop, leaks), daemon=True
        )
        watcher.start()
        try:
            ran = subprocess.run(
                [str(HARNESS), "demo", "--auto-accept", "--wait", "--dir", str(home / "demo")],
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert ran.returncode == 0, ran.stdout + ran.stderr
            stop.set()
            watcher.join(timeout=10)
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as answer:
                daemon_metrics = answer.read().decode()
            scraped = prometheus_scrape(port, home)
            cli = subprocess.run(
                [str(HARNESS), "metrics"], env=env, capture_output=True, text=True, timeout=60
            )
            assert cli.returncode == 0, cli.stderr
        finally:
            stop.set()
            subprocess.run([str(HARNESS), "daemon", "stop"], env=env, capture_output=True)
        yield Observed(received, nonce, cli.stdout, daemon_metrics, leaks, scraped)


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_spans_of_every_kind_reach_the_receiver_with_their_facts(observed: Observed) -> None:
    received = observed.received
    kinds = {span.name.split(" ")[0] for span in received.spans}
    assert kinds == {"run", "phase", "session", "tool", "gate", "checkpoint"}
    [run] = received.named("run")
    assert run.resource["harness.test"] == observed.nonce  # a standard variable, carried
    assert run.attributes["harness.outcome"] == "done"
    assert run.attributes["harness.tokens.input"] > 0
    assert {span.trace_id for span in received.spans} == {run.trace_id}
    by_id = {span.span_id: span for span in received.spans}
    for span in received.spans:
        assert span.attributes["harness.agent"] == "agent_1"
        assert span.start_ns <= span.end_ns
        parent = by_id.get(span.parent_span_id)
        expected = {
            "run": None,
            "phase": "run",
            "session": "phase",
            "gate": "phase",
            "checkpoint": "phase",
            "tool": "session",
        }[span.name.split(" ")[0]]
        assert (parent.name.split(" ")[0] if parent else None) == expected, span.name
    coding = received.named("session coding")
    assert len(coding) == 3 and all(s.attributes["harness.issue"] > 0 for s in coding)
    assert all("harness.tokens.output" in s.attributes for s in received.named("session"))
    closures = received.named("checkpoint issue_closure")
    assert len(closures) == 3 and all(s.attributes["harness.issue"] > 0 for s in closures)
    assert all(
        s.attributes["harness.decision.by"] == "auto-accept" for s in received.named("checkpoint")
    )
    assert {s.attributes["harness.tool"] for s in received.named("tool")} >= {"Write", "Bash"}
    assert all("harness.gate.exit_code" in s.attributes for s in received.named("gate"))


def test_the_otel_settings_reach_no_process_the_daemon_started(observed: Observed) -> None:
    assert observed.leaks == []


def test_harness_metrics_after_the_demo_has_every_family_and_its_figures(
    observed: Observed,
) -> None:
    families = {family.name for family in text_string_to_metric_families(observed.cli_metrics)}
    figures = samples(observed.cli_metrics)
    agent = (("agent", "agent_1"),)

    assert families >= FAMILIES
    assert figures[("harness_agents", (("exit_state", "complete"), ("status", "done")))] == 1
    sessions = figures[("harness_session_duration_seconds_count", agent)]
    assert sessions == len(observed.received.named("session")) > 0
    assert figures[("harness_sessions_total", (*agent, ("outcome", "ok")))] == sessions
    waits = sum(
        value
        for (name, _labels), value in figures.items()
        if name == "harness_checkpoint_wait_seconds_count"
    )
    assert waits == len(observed.received.named("checkpoint"))
    gates = observed.received.named("gate")
    ran = [gate for gate in gates if not gate.attributes["harness.gate.reused"]]
    assert figures[("harness_gate_runs_total", (*agent, ("result", "passed")))] == len(ran)
    assert figures[("harness_gate_reuses_total", agent)] == len(gates) - len(ran)
    assert (
        figures[("harness_tokens_total", (*agent, ("kind", "input")))]
        == (observed.received.named("run")[0].attributes["harness.tokens.input"])
    )
    assert figures[("harness_policy_allowed_total", agent)] > 0


def test_the_daemon_serves_what_harness_metrics_prints(observed: Observed) -> None:
    served = samples(observed.daemon_metrics)

    assert samples(observed.cli_metrics).items() <= served.items()
    assert served[("harness_daemon_refused_connections_total", ())] == 0


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian: prometheus) absent")
def test_promtool_finds_nothing_to_fault(observed: Observed) -> None:
    for text in (observed.cli_metrics, observed.daemon_metrics):
        checked = subprocess.run(
            ["promtool", "check", "metrics"], input=text, capture_output=True, text=True
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.strip() == "" and checked.stderr.strip() == ""


def test_a_real_prometheus_scrapes_the_daemon(observed: Observed) -> None:
    if observed.scraped is None:
        pytest.skip("prometheus (Debian: prometheus) absent")
    ok = [row for row in observed.scraped if row["metric"].get("outcome") == "ok"]

    assert [row["metric"]["agent"] for row in ok] == ["agent_1"]
    assert float(ok[0]["value"][1]) == len(observed.received.named("session"))

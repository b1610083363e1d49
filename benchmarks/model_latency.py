"""The demo's wall time when the embedded model answers with a real model's latency.

Usage: ``.venv/bin/python -m benchmarks.model_latency [--latencies 0,1.5]``

For each latency the demo project and spec are laid out as ``harness demo`` does, and
the README's first command runs it: ``harness run --specs @FILE --auto-accept --wait
--model-latency SECONDS``, through a daemon in a scratch ``HARNESS_HOME`` (the demo's
cached environment is reused). The daemon is started with ``HARNESS_MODEL_RECORD``, so
the embedded model appends a line per ``/v1/messages`` request and the script can
count them. Printed per latency: the outcome, the wall time of ``harness run``, the
number of model requests, the time they waited (requests × latency, all of it on the
critical path while one issue runs at a time) and what is left of the wall time.

Why: parallel issues (issue 17) are judged against this baseline, with one and a
half seconds per answer.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agent.demo_env import CACHE_VARIABLE, env_cache
from agent.frontend.demo import prepare_demo
from agent.model.recording import RECORD_ENV, read_records
from agent.model.server import parse_latency
from common.workspace import git

DEFAULT_LATENCIES = (0.0, 1.5)
RUN_TIMEOUT_S = 1800.0


@dataclass(frozen=True)
class Measurement:
    """One demo run at one latency."""

    latency_s: float
    exit_code: int
    seconds: float
    requests: int
    feature_commits: int
    """``feat(#N)`` commits on the project's branches: one per issue when the run is whole."""

    @property
    def waited_s(self) -> float:
        """The time the model's answers waited, one after the other."""
        return self.requests * self.latency_s

    @property
    def outcome(self) -> str:
        """``done``, or the exit status of ``harness run``."""
        return "done" if self.exit_code == 0 else f"exit {self.exit_code}"


def harness(
    *args: str, env: dict[str, str], timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` as the README runs it, with this interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "agent.control", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def run_demo(scratch: Path, latency_s: float, env: dict[str, str], record: Path) -> Measurement:
    """Lay out a new demo, run it to its end at ``latency_s`` and measure it."""
    spec = prepare_demo(scratch / f"demo-{latency_s:g}s", auto_accept=True)
    specs_file = scratch / f"specs-{latency_s:g}s.json"
    specs_file.write_text(json.dumps([json.loads(spec.model_dump_json())]))
    before = len(read_records(record))
    started = time.monotonic()
    done = harness(
        "run",
        "--specs",
        f"@{specs_file}",
        "--auto-accept",
        "--wait",
        "--model-latency",
        repr(latency_s),
        env=env,
        timeout=RUN_TIMEOUT_S,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
    log = git.git(spec.project_dir, "log", "--all", "--format=%s")
    commits = sum(1 for subject in log.splitlines() if subject.startswith("feat(#"))
    return Measurement(
        latency_s=latency_s,
        exit_code=done.returncode,
        seconds=seconds,
        requests=len(read_records(record)) - before,
        feature_commits=commits,
    )


def report(measurements: list[Measurement]) -> str:
    """A row per latency, and the line comparing each one with the first."""
    rows = [
        f"{'latency':>8} {'outcome':>8} {'wall s':>8} {'requests':>9} "
        f"{'waited s':>9} {'rest s':>7} {'feat':>5}"
    ]
    for m in measurements:
        rows.append(
            f"{m.latency_s:>7g}s {m.outcome:>8} {m.seconds:>8.1f} {m.requests:>9} "
            f"{m.waited_s:>9.1f} {m.seconds - m.waited_s:>7.1f} {m.feature_commits:>5}"
        )
    base = measurements[0]
    for m in measurements[1:]:
        rows.append(
            f"at {m.latency_s:g} s per answer the demo takes {m.seconds / base.seconds:.1f}× "
            f"its {base.latency_s:g} s wall time ({m.seconds - base.seconds:+.1f} s for "
            f"{m.waited_s:.1f} s of answers waited)"
        )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    rows.append(f"{os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the end")
    return "\n".join(rows)


def measure(latencies: list[float]) -> list[Measurement]:
    """Every latency in turn, through one daemon in a scratch home, removed afterwards."""
    scratch = Path(tempfile.mkdtemp(prefix="latency-", dir="/tmp"))  # short AF_UNIX paths
    record = scratch / "requests.jsonl"
    env = {
        **os.environ,
        CACHE_VARIABLE: str(env_cache()),  # the demo's venv, already built for this user
        "HARNESS_HOME": str(scratch / "h"),
        RECORD_ENV: str(record),  # the daemon's agents start the model with it
    }
    os.environ.update({key: env[key] for key in (CACHE_VARIABLE, "HARNESS_HOME")})
    try:
        started = harness("daemon", "start", env=env)
        if started.returncode != 0:
            raise SystemExit(f"error: the daemon did not start: {started.stderr.strip()}")
        return [run_demo(scratch, latency, env, record) for latency in latencies]
    finally:
        harness("daemon", "stop", env=env)
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--latencies",
        default=",".join(f"{x:g}" for x in DEFAULT_LATENCIES),
        help="comma-separated seconds per model answer, the first is the baseline (0,1.5)",
    )
    args = parser.parse_args()
    try:
        latencies = [parse_latency(part) for part in args.latencies.split(",")]
    except ValueError as e:
        raise SystemExit(f"error: --latencies: {e}") from None
    print(report(measure(latencies)))


if __name__ == "__main__":
    main()

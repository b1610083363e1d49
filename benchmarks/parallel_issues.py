"""Four issues one at a time against three at once, with a real model's latency.

Usage: ``.venv/bin/python -m benchmarks.parallel_issues [--latency 1.5] [--parallel 3]``

The spec and playbook of tests/e2e/test_parallel_issues.py (four issues: #3 needs #1,
#2 edits #1's file in another function) run twice on a fresh project each, through
``harness run --specs @FILE --auto-accept --wait`` and a daemon in a scratch
``HARNESS_HOME``: once with ``"parallel": 1``, once with ``"parallel": N``, the
embedded model waiting ``--latency`` seconds before each answer. Printed: each run's
outcome, wall time and feature commits, and the ratio of the parallel wall time to the
serial one (issue 17's target: at most 0.6).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from agent.demo_env import CACHE_VARIABLE, env_cache
from agent.model.server import parse_latency
from benchmarks.model_latency import RUN_TIMEOUT_S, harness
from common.schemas.spec import LOCAL_MODEL
from common.workspace import git
from tests.e2e.test_parallel_issues import DATA, ops_project

TARGET_RATIO = 0.6


@dataclass(frozen=True)
class Measurement:
    """One run of the four issues."""

    parallel: int
    exit_code: int
    seconds: float
    feature_commits: int

    @property
    def outcome(self) -> str:
        return "done" if self.exit_code == 0 else f"exit {self.exit_code}"


def run_once(scratch: Path, parallel: int, latency_s: float, env: dict[str, str]) -> Measurement:
    """Run the four issues on a new project with ``parallel`` slots and measure it."""
    project = ops_project()
    spec = {
        "spec_file": str(DATA / "parallel-spec.md"),
        "project_dir": str(project),
        "target_branch": "main",
        "file_only_mode": True,
        "model": LOCAL_MODEL,
        "playbook": str(DATA / "parallel-playbook.json"),
        "parallel": parallel,
        "model_latency_s": latency_s,
    }
    specs_file = scratch / f"specs-{parallel}.json"
    specs_file.write_text(json.dumps([spec]))
    started = time.monotonic()
    done = harness(
        "run",
        "--specs",
        f"@{specs_file}",
        "--auto-accept",
        "--wait",
        env=env,
        timeout=RUN_TIMEOUT_S,
    )
    seconds = time.monotonic() - started
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
    log = git.git(project, "log", "--all", "--format=%s")
    commits = sum(1 for subject in log.splitlines() if subject.startswith("feat(#"))
    shutil.rmtree(project.parent, ignore_errors=True)
    return Measurement(parallel, done.returncode, seconds, commits)


def report(serial: Measurement, parallel: Measurement, latency_s: float) -> str:
    rows = [f"{'parallel':>8} {'outcome':>8} {'wall s':>8} {'feat':>5}"]
    for m in (serial, parallel):
        rows.append(f"{m.parallel:>8} {m.outcome:>8} {m.seconds:>8.1f} {m.feature_commits:>5}")
    ratio = parallel.seconds / serial.seconds
    verdict = "within" if ratio <= TARGET_RATIO else "over"
    rows.append(
        f"at {latency_s:g} s per answer, parallel {parallel.parallel} takes {ratio:.2f} of the "
        f"serial wall time ({verdict} the {TARGET_RATIO} target)"
    )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    rows.append(f"{os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the end")
    return "\n".join(rows)


def measure(parallel: int, latency_s: float) -> tuple[Measurement, Measurement]:
    """The serial run, then the parallel one, through one daemon in a scratch home."""
    scratch = Path(tempfile.mkdtemp(prefix="par-", dir="/tmp"))  # short AF_UNIX paths
    env = {**os.environ, CACHE_VARIABLE: str(env_cache()), "HARNESS_HOME": str(scratch / "h")}
    os.environ.update({key: env[key] for key in (CACHE_VARIABLE, "HARNESS_HOME")})
    try:
        started = harness("daemon", "start", env=env)
        if started.returncode != 0:
            raise SystemExit(f"error: the daemon did not start: {started.stderr.strip()}")
        return run_once(scratch, 1, latency_s, env), run_once(scratch, parallel, latency_s, env)
    finally:
        harness("daemon", "stop", env=env)
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", default="1.5", help="seconds per model answer (1.5)")
    parser.add_argument("--parallel", type=int, default=3, help="slots of the parallel run (3)")
    args = parser.parse_args()
    try:
        latency = parse_latency(args.latency)
    except ValueError as e:
        raise SystemExit(f"error: --latency: {e}") from None
    if not 2 <= args.parallel <= 8:
        raise SystemExit("error: --parallel: from 2 to 8")
    serial, parallel = measure(args.parallel, latency)
    print(report(serial, parallel, latency))


if __name__ == "__main__":
    main()

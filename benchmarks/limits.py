"""What the limits cost: the demo's wall time with them and without, and the launcher's start.

Usage: ``.venv/bin/python -m benchmarks.limits [--runs 3] [--starts 30]``

The demo (three issues, the embedded model, auto-accept, sandboxed) runs to DONE through a
real agent process, ``--runs`` times with the limits (the launcher in front of every
session and gate, a control group per session and gate where the machine gives one, sized
tmpfs, the disk watch) and as many times without (``HARNESS_LIMITS=off``, the setting that
exists for this baseline only: no launcher, no control group), in turn (each kind first
every other time) so that the machine's load falls on both alike. Printed: each run's
wall time, the medians and their ratio (issue 26's target: at most 1.05); a first,
unmeasured run builds the demo's environment. Then the launcher's own start, measured
alone: spawn to exit of ``true`` behind it (no limit; with a control group per
hierarchy, as a gate gets them) against ``true`` alone, in an empty folder, the median
of ``--starts``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agent.core.session.sandboxing import LIMITS_VARIABLE
from agent.demo_env import CACHE_VARIABLE, env_cache
from agent.sandbox import cgroups
from agent.sandbox.limits import Entry, bare_argv, launcher_python
from common.atomic import read_model
from common.schemas.agent_state import AgentState, Phase
from common.schemas.limits import Limits
from tests.e2e.agents import REPO, demo_workspace

TARGET_RATIO = 1.05
RUN_TIMEOUT_S = 300.0


def demo_seconds(limits_on: bool) -> float:
    """One demo run to DONE by a real agent process, in seconds (a failure stops here)."""
    spec, files = demo_workspace(auto_accept=True)
    env = {**os.environ, CACHE_VARIABLE: str(env_cache())}
    if not limits_on:
        env[LIMITS_VARIABLE] = "off"
    started = time.monotonic()
    with (files.logs / "bench.log").open("ab") as log:
        agent = subprocess.run(
            [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT_S, check=False,
        )  # fmt: skip
    seconds = time.monotonic() - started
    state = read_model(files.state, AgentState)
    if agent.returncode != 0 or state.phase is not Phase.DONE:
        raise SystemExit(f"error: the demo did not reach DONE ({state.failure}); see {log.name}")
    shutil.rmtree(spec.project_dir.parent, ignore_errors=True)
    return seconds


def start_ms(argv: list[str], runs: int) -> float:
    """The median spawn-to-exit of ``argv``, in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def launcher_starts(runs: int) -> list[str]:
    """The launcher's start, bare and with the machine's control groups, against ``true``."""
    os.chdir(tempfile.mkdtemp(prefix="bl-cwd-"))  # the launcher walks its working folder
    alone = start_ms(["true"], runs)
    bare = start_ms([*bare_argv("gate"), "true"], runs)
    found = cgroups.prepare(Limits())
    try:
        entry = Entry(Limits(disk_mb=None), tuple(found.parents), frozenset(found.held),
                      python=launcher_python())  # fmt: skip
        grouped = start_ms([*entry.argv("gate"), "true"], runs)
    finally:
        found.release()
    held = ", ".join(sorted(found.held)) or "none here"
    return [
        f"launcher start (median of {runs}): {bare - alone:.1f} ms bare, "
        f"{grouped - alone:.1f} ms with its control groups ({held}); "
        f"`true` alone {alone:.1f} ms",
    ]


def report(with_limits: list[float], without: list[float]) -> list[str]:
    rows = [f"{'run':>4} {'limits s':>9} {'none s':>8}"]
    for number, (on, off) in enumerate(zip(with_limits, without, strict=True), start=1):
        rows.append(f"{number:>4} {on:>9.1f} {off:>8.1f}")
    on, off = statistics.median(with_limits), statistics.median(without)
    ratio = on / off
    verdict = "within" if ratio <= TARGET_RATIO else "over"
    rows.append(
        f"median: {on:.1f} s with the limits, {off:.1f} s without: {ratio:.3f} "
        f"({verdict} the {TARGET_RATIO} target)"
    )
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    rows.append(f"{os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the end")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="demo runs of each kind (3)")
    parser.add_argument("--starts", type=int, default=30, help="launcher starts to time (30)")
    args = parser.parse_args()
    if not 1 <= args.runs <= 20 or not 1 <= args.starts <= 1000:
        raise SystemExit("error: --runs from 1 to 20, --starts from 1 to 1000")
    home = Path(tempfile.mkdtemp(prefix="bl", dir="/tmp"))  # short AF_UNIX paths
    os.environ["HOME"] = str(home)
    os.environ["HARNESS_HOME"] = str(home / "h")
    (home / "h").mkdir(mode=0o700)
    try:
        demo_seconds(False)  # a first run builds the demo's environment: not measured
        with_limits: list[float] = []
        without: list[float] = []
        for run in range(args.runs):  # in turn, first one then the other: the load and
            first = run % 2 == 0  # whatever a run leaves warm fall on both alike
            seconds = {first: demo_seconds(first), not first: demo_seconds(not first)}
            with_limits.append(seconds[True])
            without.append(seconds[False])
        for line in [*report(with_limits, without), *launcher_starts(args.starts)]:
            print(line)
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()

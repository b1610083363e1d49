"""What waiting costs: N real agents at a checkpoint, their CPU, memory and the daemon's answers.

``python -m benchmarks.idle_agents [--agents 100] [--window 10]`` starts a daemon in a
scratch ``HARNESS_HOME`` and N demo agents (embedded model, no auto-accept). Each runs
project_verification and then waits for a person at its first checkpoint. Once every
one waits, the script measures over the window: the CPU all agent processes and their
children (the embedded model) used, as a share of one core; the daemon's ``list``
round trip (200 calls: median, p99); and each agent's memory (RSS of the agent and
its model server). Then it stops everything. Targets (issue 9): under 1 % of a core
together for 100 agents, ``list`` p99 ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.demo import prepare_demo
from common.schemas.protocol import AgentInfo

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def family(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        queue.extend(children.get(current, []))
    return found


def cpu_seconds(pids: list[int]) -> float:
    """User plus system time of ``pids`` so far."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / CLOCK_TICKS


def rss_mib(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        except OSError:
            continue
    return total / 2**20


async def all_waiting(client: DaemonClient, count: int, timeout: float) -> list[AgentInfo]:
    deadline = time.monotonic() + timeout
    while True:
        agents = await client.list_agents()
        waiting = [a for a in agents if a.pending_checkpoint is not None]
        if len(waiting) == count:
            return waiting
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(waiting)} of {count} agents reached a checkpoint")
        await asyncio.sleep(1.0)


async def measure(count: int, window: float) -> None:
    scratch = Path(tempfile.mkdtemp(prefix="idle-", dir="/tmp"))
    os.environ["HARNESS_HOME"] = str(scratch / "h")
    try:
        specs = [prepare_demo(scratch / f"d{n}", auto_accept=False) for n in range(count)]
        await lifecycle.start_daemon()
        started = time.monotonic()
        async with DaemonClient.connect() as client:
            for spec in specs:
                await client.start(spec)
            waiting = await all_waiting(client, count, timeout=60 + 3 * count)
            ready_s = time.monotonic() - started
            await asyncio.sleep(2.0)  # let start-up work settle
            pids = [p for info in waiting if info.pid for p in family(info.pid)]
            before = cpu_seconds(pids)
            await asyncio.sleep(window)
            used = cpu_seconds(pids) - before
            memory = [rss_mib(family(info.pid)) for info in waiting if info.pid]
            rounds = []
            for _ in range(200):
                t0 = time.perf_counter()
                await client.list_agents()
                rounds.append((time.perf_counter() - t0) * 1000)
            for info in waiting:
                await client.stop(info.name)
        rounds.sort()
        print(f"{count} agents waiting at a checkpoint (all waiting after {ready_s:.0f} s)")
        print(f"  processes measured: {len(pids)} (agents and their embedded models)")
        print(
            f"  CPU over {window:.0f} s: {used:.3f} s = {100 * used / window:.2f} % of one core "
            f"together ({100 * used / window / count:.4f} % per agent)"
        )
        print(
            f"  memory per agent (agent + model server RSS): median "
            f"{statistics.median(memory):.0f} MiB, max {max(memory):.0f} MiB"
        )
        print(
            f"  daemon list ({count} agents), 200 calls: median "
            f"{statistics.median(rounds):.1f} ms, p99 {rounds[int(len(rounds) * 0.99) - 1]:.1f} ms"
        )
    finally:
        await lifecycle.stop_daemon()
        shutil.rmtree(scratch, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--agents", type=int, default=100)
    parser.add_argument("--window", type=float, default=10.0, help="seconds measured")
    args = parser.parse_args()
    asyncio.run(measure(args.agents, args.window))


if __name__ == "__main__":
    main()

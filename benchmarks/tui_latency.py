"""How fast the running TUI shows what happens, measured in a real pseudo-terminal.

Usage: ``.venv/bin/python -m benchmarks.tui_latency [--checkpoints 30] [--lines 50]
[--launches 5] [--flood-seconds 10] [--flood-rate 10000]``

``python -m tui.main`` runs in a pty of 120×36, against a real daemon whose one
agent only sleeps (so nothing but this script writes its files). A reader thread
timestamps every byte the TUI writes to the terminal: a thing counts as shown
when its text reaches the terminal, which is as close to "on screen" as a
program can observe. Measured:

- launch → first painted screen (the header's title reaches the terminal),
  launch → agents shown (the agent's name reaches the terminal: from the second launch
  on, the list the last TUI kept, in the first paint itself) and launch → the daemon's
  answer painted (the status bar's "daemon pid": the TUI paints before it connects);
- a checkpoint file becoming pending → its announcement on screen (the default:
  the ⚑ toast "agent_1 waits at …"; the dialog opens when the person asks);
- the same → its dialog on screen with ``auto_open`` set in the TUI settings (the
  write is done as the agent does it, the dialog is then closed by a CLI decision);
- a log line appended → the line on screen;
- 10 s of 10,000 lines a second appended to the followed log: the TUI's memory
  (RSS, sampled twice a second) and how far the screen trails the writer.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.demo import prepare_demo
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import MrPhaseTransitionCheckpoint, MrPhaseTransitionContext
from common.schemas.protocol import AgentInfo
from common.schemas.tui_settings import NotifySettings, TuiSettings
from common.workspace import checkpoints
from common.workspace.answer import approve
from tests.tui.pty_terminal import PtyTerminal

REPO = Path(__file__).resolve().parents[1]
SLEEPER = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(3600)'"
FLOOD_LINE = re.compile(r"FLOOD(\d{8})")
#: Between two measurements the TUI goes idle, as it is while an agent works between
#: checkpoints; otherwise a checkpoint would arrive while the last dialog is still closing.
SETTLE_S = 0.3


def tui(env: dict[str, str]) -> PtyTerminal:
    """The TUI against the running daemon, in a pty."""
    return PtyTerminal([sys.executable, "-m", "tui.main", "--no-daemon-start"], env, REPO)


def flood_marks(terminal: PtyTerminal, since: int) -> list[tuple[float, int]]:
    """(arrival, highest flood line number) for every chunk after ``since``."""
    text = terminal.text()
    marks: list[tuple[float, int]] = []
    start = since
    for arrival, length in terminal.chunks():
        if length <= since:
            continue
        numbers = [int(n) for n in FLOOD_LINE.findall(text, start, length)]
        if numbers:
            marks.append((arrival, max(numbers)))
        start = length
    return marks


def launch_times(
    env: dict[str, str], launches: int
) -> tuple[list[float], list[float], list[float]]:
    """``launches`` starts of the TUI: (first paint, agents shown, daemon's answer shown) of
    each, in milliseconds from spawn. First paint: the header's title reaches the terminal;
    agents shown: the agent ``agent_1`` does (its row painted, from the last known list
    once a TUI has kept one); the daemon's answer: the status bar's ``daemon pid``."""
    painted_ms: list[float] = []
    shown_ms: list[float] = []
    answered_ms: list[float] = []
    for _ in range(launches):
        terminal = tui(env)
        painted, _ = terminal.wait_for("coding-harness")
        shown, _ = terminal.wait_for("agent_1")
        answered, _ = terminal.wait_for("daemon pid")
        painted_ms.append((painted - terminal.started) * 1000)
        shown_ms.append((shown - terminal.started) * 1000)
        answered_ms.append((answered - terminal.started) * 1000)
        terminal.quit()
    return painted_ms, shown_ms, answered_ms


def bench_checkpoint(number: int) -> MrPhaseTransitionCheckpoint:
    return MrPhaseTransitionCheckpoint(
        id=f"bench-{number}",
        what_happened=[f"BENCHCKPT{number:04d}"],
        to_decide="continue?",
        if_approved="next",
        if_rejected="stop",
        context=MrPhaseTransitionContext(closed_issues=[], open_issues=[]),
    )


def announce_delays(terminal: PtyTerminal, agent: AgentInfo, count: int) -> list[float]:
    """Default settings: a pending checkpoint → the toast that announces it."""
    files = WorkspaceFiles(agent.workspace)
    delays: list[float] = []
    for number in range(count):
        since = terminal.position
        checkpoints.write(files, bench_checkpoint(number))
        pending = time.perf_counter()
        shown, _ = terminal.wait_for("waits at mr_phase_transition", since)
        delays.append((shown - pending) * 1000)
        approve(agent.workspace, None, None, client="cli")
        time.sleep(SETTLE_S * 2)
    return delays


def checkpoint_delays(terminal: PtyTerminal, agent: AgentInfo, count: int) -> list[float]:
    files = WorkspaceFiles(agent.workspace)
    delays: list[float] = []
    for number in range(count):
        checkpoint = bench_checkpoint(number + 1000)
        token = checkpoint.what_happened[0]
        since = terminal.position
        checkpoints.write(files, checkpoint)
        pending = time.perf_counter()
        shown, end = terminal.wait_for(token, since)
        delays.append((shown - pending) * 1000)
        approve(agent.workspace, None, None, client="cli")
        terminal.wait_for("decided by cli:", end)  # the dialog closed, with its notice
        time.sleep(SETTLE_S)
    return delays


def line_delays(terminal: PtyTerminal, agent: AgentInfo, count: int) -> list[float]:
    delays: list[float] = []
    for number in range(count):
        token = f"BENCHLOG{number:05d}"
        since = terminal.position
        with agent.log_file.open("a") as log:
            log.write(f"12:00:00 {token} a line of the agent's log\n")
        written = time.perf_counter()
        shown, _ = terminal.wait_for(token, since)
        delays.append((shown - written) * 1000)
        time.sleep(SETTLE_S / 10)
    return delays


def flood(terminal: PtyTerminal, agent: AgentInfo, seconds: float, rate: int) -> dict[str, float]:
    """Append ``rate`` lines a second for ``seconds``; how the screen and the memory fare."""
    batch = rate // 100  # one write every 10 ms
    padding = "x" * 70
    written_at: list[float] = []
    rss: list[int] = [terminal.rss_kib()]
    since = terminal.position
    start = time.perf_counter()
    next_sample = start
    number = 0
    with agent.log_file.open("a") as log:
        while (now := time.perf_counter()) - start < seconds:
            lines = "".join(f"FLOOD{number + n:08d} {padding}\n" for n in range(batch))
            log.write(lines)
            log.flush()
            number += batch
            written_at.append(time.perf_counter())
            if now >= next_sample:
                rss.append(terminal.rss_kib())
                next_sample += 0.5
            time.sleep(max(0.0, start + len(written_at) * 0.01 - time.perf_counter()))
    last = number - 1
    finished = time.perf_counter()
    caught_up, _ = terminal.wait_for(f"FLOOD{last:08d}", since)
    rss.append(terminal.rss_kib())
    lags = [
        (arrival - written_at[shown // batch]) * 1000
        for arrival, shown in flood_marks(terminal, since)
        if arrival <= finished
    ]
    return {
        "lines": number,
        "rss_start": rss[0] / 1024,
        "rss_peak": max(rss) / 1024,
        "rss_end": rss[-1] / 1024,
        "lag_median": statistics.median(lags),
        "lag_p95": statistics.quantiles(lags, n=20, method="inclusive")[-1],
        "catch_up": (caught_up - finished) * 1000,
    }


async def start_agent(root: Path) -> AgentInfo:
    spec = prepare_demo(root / "demo", auto_accept=False)
    await lifecycle.start_daemon(daemon_args=["--agent-command", SLEEPER])
    async with DaemonClient.connect() as client:
        info = await client.start(spec)
    info.log_file.parent.mkdir(parents=True, exist_ok=True)
    info.log_file.touch()
    return info


async def stop_everything() -> None:
    async with DaemonClient.connect() as client:
        for info in await client.list_agents():
            await client.stop(info.name)
    await lifecycle.stop_daemon()


def summary(label: str, values: list[float], target: float | None) -> None:
    median = statistics.median(values)
    p90 = statistics.quantiles(values, n=10, method="inclusive")[-1]
    verdict = ""
    if target is not None:
        verdict = f"; target ≤ {target:.0f} ms: {'met' if median <= target else 'NOT met'}"
    print(
        f"{label}: median {median:.0f} ms, p90 {p90:.0f} ms,"
        f" max {max(values):.0f} ms (n={len(values)}{verdict})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--checkpoints", type=int, default=30)
    parser.add_argument("--lines", type=int, default=50)
    parser.add_argument("--launches", type=int, default=5)
    parser.add_argument("--flood-seconds", type=float, default=10.0)
    parser.add_argument("--flood-rate", type=int, default=10_000)
    args = parser.parse_args()

    home = tempfile.mkdtemp(prefix="hb", dir="/tmp")
    root = Path(tempfile.mkdtemp(prefix="bench-tui-"))
    os.environ["HARNESS_HOME"] = home
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    agent = asyncio.run(start_agent(root))
    try:
        painted, shown, answered = launch_times(env, args.launches)
        summary("launch → first painted screen", painted, 300)
        summary("launch → agents shown (the last known list from the 2nd launch)", shown, None)
        summary("launch → the daemon's answer painted", answered, None)
        terminal = tui(env)
        try:
            terminal.wait_for("agent_1")
            summary(
                "checkpoint pending → announced on screen",
                announce_delays(terminal, agent, args.checkpoints),
                100,
            )
            summary("log line appended → on screen", line_delays(terminal, agent, args.lines), 50)
            result = flood(terminal, agent, args.flood_seconds, args.flood_rate)
        finally:
            terminal.quit()
        settings = TuiSettings(auto_open=True, notify=NotifySettings(bell=False, osc=False))
        write_model(Path(home) / "tui_settings.json", settings)
        terminal = tui(env)
        try:
            terminal.wait_for("agent_1")
            summary(
                "checkpoint pending → dialog on screen (auto_open)",
                checkpoint_delays(terminal, agent, args.checkpoints),
                100,
            )
        finally:
            terminal.quit()
    finally:
        asyncio.run(stop_everything())
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    print(
        f"flood: {result['lines']:.0f} lines in {args.flood_seconds:g} s;"
        f" RSS {result['rss_start']:.0f} → peak {result['rss_peak']:.0f}"
        f" → end {result['rss_end']:.0f} MiB"
    )
    print(
        f"  screen behind the writer: median {result['lag_median']:.0f} ms,"
        f" p95 {result['lag_p95']:.0f} ms; last line on screen"
        f" {result['catch_up']:.0f} ms after the writer stopped"
    )


if __name__ == "__main__":
    main()

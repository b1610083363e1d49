"""How fast the harness starts: ``harness list``, ``harness approve`` and the TUI, in one run.

Usage: ``.venv/bin/python -m benchmarks.startup [--runs 15] [--approvals 4] [--launches 5]``

Everything runs as a person runs it, against one real daemon in a scratch
``HARNESS_HOME`` with one agent, the demo on the embedded model, waiting at its
checkpoints. Measured:

- ``harness list`` (the console script), wall time from spawn to exit, against
  ``python3 -c pass`` measured in turn with it: the ratio of the medians (target ≤ 5×);
  the harness's interpreter started bare beside them (``python3`` may be a wrapper);
- ``harness approve agent_1`` typed → the agent acting (the daemon signs and writes the
  answer the command sends): from spawning the command to
  its decision's line (``checkpoint … approved by …``) reaching the agent's log, read
  every millisecond (target ≤ 150 ms); the command's own wall time is shown beside it;
- the TUI's first paint: ``python -m tui.main`` in a real pseudo-terminal, from spawn
  to its title reaching the terminal (target ≤ 300 ms; see :mod:`benchmarks.tui_latency`),
  to the agent's name reaching it (from the second launch on, in the first paint: the list
  the last TUI kept) and to the daemon's answer painted (which comes after).

The machine's load is printed too: on a busy machine every figure grows, the ratio less.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent.daemon.client import DaemonClient
from agent.demo_env import CACHE_VARIABLE, env_cache
from agent.frontend.demo import prepare_demo
from benchmarks.tui_latency import launch_times
from common.paths import WorkspaceFiles
from common.schemas.protocol import AgentInfo
from common.workspace import checkpoints

REPO = Path(__file__).resolve().parents[1]
LIST_RATIO_TARGET = 5.0
APPROVE_TARGET_MS = 150.0
PAINT_TARGET_MS = 300.0
WAIT_S = 120.0


def harness_command() -> list[str]:
    """The ``harness`` console script next to this interpreter (``-m agent.control`` without)."""
    script = Path(sys.executable).parent / "harness"
    return [str(script)] if script.exists() else [sys.executable, "-m", "agent.control"]


def wall_ms(argv: list[str], env: dict[str, str]) -> float:
    """Spawn to exit of ``argv``, in milliseconds; a failure stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SystemExit(f"error: {' '.join(argv)} failed: {done.stderr.strip()}")
    return elapsed


def list_against_python(
    runs: int, env: dict[str, str]
) -> tuple[list[float], list[float], list[float]]:
    """``python3 -c pass``, the harness's own interpreter's ``-c pass`` and ``harness list``,
    in turn (the load falls on all alike).

    ``python3`` is what the issue names and what a person types; where it is a wrapper
    (pyenv's shim is a shell script) the harness's interpreter started bare shows how
    much of a command's time is the command's own.
    """
    python = shutil.which("python3") or sys.executable
    baseline: list[float] = []
    interpreter: list[float] = []
    listing: list[float] = []
    for _ in range(runs):
        baseline.append(wall_ms([python, "-c", "pass"], env))
        interpreter.append(wall_ms([sys.executable, "-c", "pass"], env))
        listing.append(wall_ms([*harness_command(), "list"], env))
    return baseline, interpreter, listing


async def waiting_checkpoint(agent: str, after: str | None) -> tuple[AgentInfo, str]:
    """The agent once a checkpoint other than ``after`` waits, and that checkpoint's id."""
    deadline = time.monotonic() + WAIT_S
    async with DaemonClient.connect() as client:
        while time.monotonic() < deadline:
            info = await client.status(agent)
            found = checkpoints.current(WorkspaceFiles(info.workspace))
            if found is not None and found.status == "pending" and found.id != after:
                return info, found.id
            if info.status.value in ("done", "failed", "stopped"):
                raise SystemExit(f"error: {agent} ended ({info.status.value}) before a checkpoint")
            await asyncio.sleep(0.05)
    raise SystemExit(f"error: no checkpoint of {agent} waited within {WAIT_S:g} s")


def approve_to_acting(
    info: AgentInfo, checkpoint_id: str, env: dict[str, str]
) -> tuple[float, float]:
    """(typed → the agent's log says it acts, typed → the command exited), in milliseconds."""
    marker = f"checkpoint {checkpoint_id} approved by".encode()
    offset = info.log_file.stat().st_size
    started = time.perf_counter()
    process = subprocess.Popen(
        [*harness_command(), "approve", info.name, "--checkpoint", checkpoint_id],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    acted: float | None = None
    exited: float | None = None
    deadline = started + WAIT_S
    with info.log_file.open("rb") as log:
        seen = b""
        while (acted is None or exited is None) and time.perf_counter() < deadline:
            if exited is None and process.poll() is not None:
                exited = time.perf_counter()
                if process.returncode != 0:
                    assert process.stderr is not None
                    raise SystemExit(f"error: harness approve: {process.stderr.read().decode()}")
            if acted is None:
                log.seek(offset + len(seen))
                seen += log.read()
                if marker in seen:
                    acted = time.perf_counter()
            time.sleep(0.001)
    if acted is None or exited is None:
        raise SystemExit(f"error: {info.name} did not act on {checkpoint_id} within {WAIT_S:g} s")
    return (acted - started) * 1000, (exited - started) * 1000


def approvals(count: int, env: dict[str, str]) -> tuple[list[float], list[float]]:
    """``count`` checkpoints of the demo approved in turn, each measured."""
    acting: list[float] = []
    command: list[float] = []
    previous: str | None = None
    for _ in range(count):
        info, checkpoint_id = asyncio.run(waiting_checkpoint("agent_1", previous))
        time.sleep(0.3)  # the agent settles into its wait, as it does while a person reads
        to_acting, to_exit = approve_to_acting(info, checkpoint_id, env)
        acting.append(to_acting)
        command.append(to_exit)
        previous = checkpoint_id
    return acting, command


def line(label: str, values: list[float], verdict: str = "") -> str:
    median = statistics.median(values)
    return (
        f"{label}: median {median:.0f} ms, min {min(values):.0f}, max {max(values):.0f} "
        f"(n={len(values)}){verdict}"
    )


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def run(args: argparse.Namespace, scratch: Path) -> list[str]:
    # As an installed harness runs: its bytecode cached (pip compiles it at install; a
    # checkout writes it on its first run), so the runs measure start-up, not compiling.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    env = {
        **os.environ,
        CACHE_VARIABLE: str(env_cache()),  # the demo's venv, already built for this user
        "HARNESS_HOME": str(scratch / "h"),
        "PYTHONPATH": str(REPO),
    }
    os.environ.update({key: env[key] for key in (CACHE_VARIABLE, "HARNESS_HOME")})
    harness = harness_command()
    spec = prepare_demo(scratch / "demo", auto_accept=False)
    started = subprocess.run(
        [*harness, "run", "--specs", f"[{spec.model_dump_json()}]"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if started.returncode != 0:
        raise SystemExit(f"error: the demo did not start: {started.stderr.strip()}")
    asyncio.run(waiting_checkpoint("agent_1", None))  # idle: nothing else loads the machine
    packages = [str(REPO / name) for name in ("agent", "common", "tui")]
    wall_ms([sys.executable, "-m", "compileall", "-q", *packages], env)  # as pip install does

    baseline, interpreter, listing = list_against_python(args.runs, env)
    paints, shown, answered = launch_times(env, args.launches)
    acting, command = approvals(args.approvals, env)

    python = statistics.median(baseline)
    ratio = statistics.median(listing) / python
    paint = statistics.median(paints)
    approve = statistics.median(acting)
    return [
        line("python3 -c pass", baseline),
        line(f"{Path(sys.executable).name} -c pass (the harness's interpreter)", interpreter),
        line("harness list", listing),
        f"  harness list / python3 -c pass: {ratio:.1f}× "
        f"(target ≤ {LIST_RATIO_TARGET:g}×: {met(ratio <= LIST_RATIO_TARGET)})",
        line("harness approve typed → agent acting", acting),
        line("  harness approve typed → command exited", command),
        f"  approve → acting: {approve / APPROVE_TARGET_MS:.2f} of the {APPROVE_TARGET_MS:g} ms "
        f"target ({met(approve <= APPROVE_TARGET_MS)}); {approve / python:.1f}× python3 -c pass",
        line("TUI launch → first painted screen", paints),
        f"  first paint: {paint / PAINT_TARGET_MS:.2f} of the {PAINT_TARGET_MS:g} ms target "
        f"({met(paint <= PAINT_TARGET_MS)}); {paint / python:.1f}× python3 -c pass",
        line("TUI launch → agents shown (the last known list from the 2nd launch)", shown),
        line("TUI launch → the daemon's answer painted", answered),
    ]


def stop_everything(env_home: Path, harness: list[str]) -> None:
    env = {**os.environ, "HARNESS_HOME": str(env_home)}
    for command in (["stop", "agent_1"], ["daemon", "stop"]):
        subprocess.run([*harness, *command], env=env, capture_output=True, check=False)


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="harness list runs (15)")
    parser.add_argument("--approvals", type=int, default=4, help="checkpoints approved (4)")
    parser.add_argument("--launches", type=int, default=5, help="TUI launches (5)")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="startup-", dir="/tmp"))  # short AF_UNIX paths
    try:
        for text in run(args, scratch):
            out(text)
    finally:
        stop_everything(scratch / "h", harness_command())
        shutil.rmtree(scratch, ignore_errors=True)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    out(f"{os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())

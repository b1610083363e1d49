"""Time the command policy on its corpus: the judge runs before every Bash call.

Usage: ``.venv/bin/python -m benchmarks.policy_speed [--rounds 20]``

Each command of ``tests/policy/data`` (dangerous and ordinary) is judged ``--rounds``
times in a small project like the tests'; the median and the 99th percentile of one
judgement are printed, for the whole judge as an unsandboxed and as a sandboxed agent's
command (issue 15: loops and brace expansions are judged once per value there), and for
the tree-sitter parse alone.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.syntax import ParseFailure, parse

DATA = Path(__file__).resolve().parent.parent / "tests" / "policy" / "data"


def corpus() -> list[str]:
    """Every command of the corpus files (``\\n`` stands for a newline)."""
    commands: list[str] = []
    for name in ("dangerous.txt", "dangerous_unsandboxed.txt", "ordinary.txt"):
        for line in (DATA / name).read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                commands.append(line.replace("\\n", "\n"))
    return commands


def make_project(folder: Path) -> Path:
    root = folder / "project"
    for sub in ("src", "tests", "mypkg", "scripts", ".venv/bin", ".git"):
        (root / sub).mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('app')\n")
    return root


def timings(commands: list[str], rounds: int, run: Callable[[str], object]) -> list[float]:
    """Microseconds per call: for each command, the median of ``rounds`` calls."""
    per_command: list[float] = []
    for command in commands:
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            run(command)
            samples.append((time.perf_counter() - start) * 1e6)
        per_command.append(statistics.median(samples))
    return per_command


def report(label: str, values: list[float]) -> None:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(
        f"{label:<19} median {statistics.median(ordered):8.1f} µs   p99 {p99:8.1f} µs   "
        f"max {ordered[-1]:8.1f} µs"
    )


def _parse_only(command: str) -> None:
    # An unparseable command costs the same parse; the judge denies it.
    with contextlib.suppress(ParseFailure):
        parse(command)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    commands = corpus()
    with tempfile.TemporaryDirectory() as folder:
        context = PolicyContext.for_project(make_project(Path(folder)))
        judge_command("ls", context)  # load the grammar once
        print(f"{len(commands)} commands, {args.rounds} rounds each")
        sandboxed = dataclasses.replace(context, sandboxed=True)
        report(
            "judge unsandboxed", timings(commands, args.rounds, lambda c: judge_command(c, context))
        )
        report(
            "judge sandboxed", timings(commands, args.rounds, lambda c: judge_command(c, sandboxed))
        )
        report("parse (tree-sitter)", timings(commands, args.rounds, _parse_only))


if __name__ == "__main__":
    main()

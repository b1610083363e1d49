"""Delay from a checkpoint decision being written to the waiting agent acting on it.

Usage: ``.venv/bin/python -m benchmarks.checkpoint_latency [--decisions 60]``

A separate process answers each checkpoint the way the CLI or the TUI does
(``common.workspace.answer.approve``: lock, read, atomic write) and stamps the moment
the write completed; the agent side waits with ``wait_for_decision`` (watchfiles)
and stamps the moment it returned. The seed polled every 5 s, so its expected
delay is 2.5 s on average: the ratio is printed against that.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from common.paths import WorkspaceFiles
from common.schemas.checkpoint import MrPhaseTransitionCheckpoint, MrPhaseTransitionContext
from common.workspace import checkpoints

SEED_POLL_S = 5.0

ANSWERER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from common.workspace.answer import approve
    workspace = Path(sys.argv[1])
    for line in sys.stdin:
        time.sleep(0.02)  # let the waiter settle into its watch
        approve(workspace, None, None)
        print(time.time(), flush=True)
    """
)


def _checkpoint(number: int) -> MrPhaseTransitionCheckpoint:
    return MrPhaseTransitionCheckpoint(
        id=f"mr_phase_transition-{number}",
        what_happened=["benchmark"],
        to_decide="continue?",
        if_approved="next",
        if_rejected="stop",
        context=MrPhaseTransitionContext(closed_issues=[], open_issues=[]),
    )


async def measure(decisions: int) -> list[float]:
    root = Path(tempfile.mkdtemp(prefix="bench-ckpt-"))
    files = WorkspaceFiles(root)
    answerer = subprocess.Popen(
        [sys.executable, "-c", ANSWERER, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert answerer.stdin is not None and answerer.stdout is not None
    delays: list[float] = []
    try:
        for number in range(decisions):
            checkpoint = _checkpoint(number)
            checkpoints.write(files, checkpoint)
            answerer.stdin.write("go\n")
            answerer.stdin.flush()
            await checkpoints.wait_for_decision(files, checkpoint.id)
            acted = time.time()
            written = float(await asyncio.to_thread(answerer.stdout.readline))
            delays.append((acted - written) * 1000)
    finally:
        answerer.stdin.close()
        answerer.wait(timeout=10)
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decisions", type=int, default=60)
    args = parser.parse_args()
    delays = asyncio.run(measure(args.decisions))
    median = statistics.median(delays)
    p90 = statistics.quantiles(delays, n=10)[-1]
    print(f"checkpoint decision → agent acting, {len(delays)} decisions")
    print(f"  median {median:.1f} ms   p90 {p90:.1f} ms   max {max(delays):.1f} ms")
    seed_ms = SEED_POLL_S / 2 * 1000
    print(f"  seed (5 s polling, mean wait {seed_ms:.0f} ms): {seed_ms / median:.0f}× slower")
    print(f"  target ≤ 50 ms median: {'met' if median <= 50 else 'NOT met'}")


if __name__ == "__main__":
    main()

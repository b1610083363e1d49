"""``harness metrics``: the agents' Prometheus text exposition, printed.

It reads ``HARNESS_HOME``'s registry and the agents' workspaces itself, so it works
whether a daemon runs or not (the daemon serves the same on ``HARNESS_METRICS_ADDR``).
prometheus-client is imported here, when this command runs, and by no other command.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from common.paths import harness_home


async def cmd_metrics(_args: argparse.Namespace) -> int:
    from agent.daemon.metrics import exposition_from_home

    text = await asyncio.to_thread(exposition_from_home, harness_home())
    sys.stdout.write(text.decode())
    return 0

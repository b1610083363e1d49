"""``harness run``: validate the specs, hand them to the daemon, follow them with ``--wait``."""

from __future__ import annotations

import argparse

from agent.control.launch import start_agents
from agent.frontend.specs import parse_specs, with_model_latency, with_parallel
from common.schemas.auto_accept import AutoAcceptRules


async def cmd_run(args: argparse.Namespace) -> int:
    specs = parse_specs(args.specs)
    if args.model_latency is not None:
        specs = with_model_latency(specs, args.model_latency)
    if args.parallel is not None:
        specs = with_parallel(specs, args.parallel)
    if args.auto_accept:
        specs = [spec.model_copy(update={"auto_accept": AutoAcceptRules.on()}) for spec in specs]
    return await start_agents(specs, wait=args.wait, fresh=args.fresh)

"""Handing specs to the daemon, and following the agents to their end."""

from __future__ import annotations

import os

from agent.control import follow
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from common.credentials import check_credentials, credentials_from
from common.schemas.daemon_state import AgentStatus
from common.schemas.spec import AgentSpec
from common.telemetry import telemetry_from
from common.workspace.setup import validate_spec


async def start_agents(
    specs: list[AgentSpec], *, wait: bool, fresh: bool = False, detached: bool = True
) -> int:
    """Hand specs to the daemon (starting it if needed); with ``wait``, follow them to the end.

    Each agent gets the Claude credentials of this process's environment (see
    :mod:`common.credentials`), whatever environment the daemon started in. With
    ``fresh`` each agent works in a new workspace, next to its spec's earlier ones.
    Following them prints one line per change, an ended agent's outcome once;
    ``detached`` ``False``: the caller stops the agents when interrupted (Ctrl-C does
    not say they keep running).
    """
    credentials = credentials_from(os.environ)
    telemetry = telemetry_from(os.environ)  # OTEL_*: the agents trace where this says
    for spec in specs:
        validate_spec(spec)  # refuse bad input before anything starts
        check_credentials(spec, credentials)
    if lifecycle.daemon_running() is None:
        status = await lifecycle.start_daemon()
        print(f"daemon started (pid {status.pid})")
    names: list[str] = []
    async with DaemonClient.connect() as client:
        for spec in specs:
            info = await client.start(spec, credentials, fresh=fresh, telemetry=telemetry)
            names.append(info.name)
            print(f"{info.name} started: {spec.spec_file.name} in {spec.project_dir}")
            print(f"  log: {info.log_file}")
    if not wait:
        return 0
    final = await follow.wait_until_finished(names, detached=detached)
    return 0 if all(info.status is AgentStatus.DONE for info in final.values()) else 1

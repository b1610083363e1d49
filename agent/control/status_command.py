"""``harness status [AGENT]``: every agent with its spend, or one agent in full.

One agent's view adds what its workspace counted (policy denials, redactions), read
from the files the agent writes; the module reading them stands apart from the other
agent commands so ``harness list`` does not load it.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from agent.control.agent_info import agent_info
from agent.control.agent_lines import exit_text, one_line, progress, status_table
from agent.control.json_output import agent_json, dumps, status_json
from agent.core.policy.audit import read_counts, status_line
from agent.core.words import security_counts
from agent.daemon.client import DaemonClient
from agent.frontend.slot_lines import status_lines
from common.atomic import read_model_or_none
from common.errors import StateFileError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.limits import MachineLimits
from common.untrusted_text import printable_line


async def cmd_status(args: argparse.Namespace) -> int:
    if args.agent is None:
        async with DaemonClient.connect() as client:
            agents = await client.list_agents()
        if args.json:
            print(dumps(status_json(agents)))
            return 0
        for line in status_table(agents):
            print(line)
        return 0
    info = await agent_info(args.agent)
    if args.json:
        machine = _machine_limits(WorkspaceFiles(info.workspace))
        limits = machine.model_dump(mode="json") if machine is not None else None
        print(dumps({**agent_json(info), "machine_limits": limits}))
        return 0
    print(one_line(info))
    print(f"  spec:      {info.spec_file}")
    print(f"  project:   {info.project_dir}")
    print(f"  workspace: {info.workspace}")
    print(f"  log:       {info.log_file}")
    print(f"  auto-accept: {info.auto_accept_rules.text()}")
    ended = exit_text(info) + (f" ({printable_line(info.reason)})" if info.reason else "")
    print(f"  exit:      {ended}")
    for line in status_lines(info.slots, datetime.now(UTC)):
        print(line)
    if info.set_aside:
        print(f"  set aside: {', '.join(f'#{iid}' for iid in info.set_aside)} (needs-human)")
    for iid, spend in sorted(info.issue_spend.items()):
        print(f"  issue #{iid}: {spend.line()}")
    print(f"  total:     {progress(info)}; {info.spend.line()}")
    workspace = WorkspaceFiles(info.workspace)
    print(f"  {status_line(read_counts(workspace))}")
    print(f"  secrets:   {security_counts.read(workspace).redactions} redactions")
    for line in limit_lines(_machine_limits(workspace)):
        print(line)
    return 0


def limit_lines(machine: MachineLimits | None) -> list[str]:
    """Which limits hold where the agent last started, and which could not be set (pure)."""
    if machine is None:
        return ["  limits:    not measured yet (the agent records them at its start)"]
    lines = [f"  limits:    {line}" for line in machine.held]
    lines += [f"  not set:   {line}" for line in machine.not_set]
    return lines


def _machine_limits(workspace: WorkspaceFiles) -> MachineLimits | None:
    """The start's probe, as the agent recorded it in its state (``None``: not yet)."""
    try:
        state = read_model_or_none(workspace.state, AgentState)
    except StateFileError:
        return None  # an unreadable state is the agent's to report, not the status's
    return state.machine_limits if state is not None else None

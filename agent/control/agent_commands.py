"""The commands that ask the daemon about agents or tell it what to do with them.

``list``, ``stop``, ``remove``, ``auto-accept``, ``resume``, ``logs`` and ``daemon``:
each needs the daemon's client and little else, so they share one light module
(``harness list`` must start at once: no SDK, no MCP, no textual here).
"""

from __future__ import annotations

import argparse
import os
import sys

from agent.control import follow
from agent.control.agent_info import agent_info
from agent.control.agent_lines import list_lines, one_line, refused_line
from agent.control.json_output import agents_json, dumps
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from common.credentials import credentials_from
from common.schemas.auto_accept import parse_rules
from common.schemas.daemon_state import AgentStatus
from common.telemetry import telemetry_from


async def cmd_list(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        agents = await client.list_agents()
        refused = client.hello.refused_connections
    if refused:
        print(f"warning: {refused_line(refused)}", file=sys.stderr)
    if args.json:
        print(dumps(agents_json(agents)))
        return 0
    for line in list_lines(agents):
        print(line)
    return 0


async def cmd_resume(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        info = await client.resume(
            args.agent, credentials_from(os.environ), telemetry_from(os.environ)
        )
    print(f"{info.name} resumed in {info.workspace}")
    print(f"  log: {info.log_file}")
    if not args.wait:
        return 0
    final = (await follow.wait_until_finished([info.name]))[info.name]
    return 0 if final.status is AgentStatus.DONE else 1


async def cmd_logs(args: argparse.Namespace) -> int:
    info = await agent_info(args.agent)
    text, end = follow.last_lines(info.log_file, args.lines)
    sys.stdout.write(text)
    if args.follow:
        ended = follow.wait_until_finished([info.name], show_hints=False)
        await follow.follow_log(info.log_file, ended, offset=end)
    return 0


async def cmd_stop(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        info = await client.stop(args.agent)
    print(one_line(info))
    return 0


async def cmd_remove(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        if args.agent is not None:
            names = [(await client.status(args.agent)).name]
        else:
            names = [i.name for i in await client.list_agents() if i.status in follow.FINISHED]
        for name in names:
            await client.remove(name)
            print(f"{name} removed")
    if not names:
        print("no ended agents to remove")
    return 0


async def cmd_auto_accept(args: argparse.Namespace) -> int:
    """Set the rules (``on``, ``off``, or ``TYPE=approve|ask,…`` on top of those in force)
    and print the rules now in force."""
    parse_rules(args.mode)  # a typo is one line before anything is asked of the daemon
    async with DaemonClient.connect() as client:
        current = (await client.status(args.agent)).auto_accept_rules
        info = await client.set_auto_accept(args.agent, parse_rules(args.mode, current))
    print(one_line(info))
    print(f"  auto-accept: {info.auto_accept_rules.text()}")
    return 0


async def cmd_daemon(args: argparse.Namespace) -> int:
    running = lifecycle.daemon_running()
    if args.action == "status":
        if running is None:
            print("daemon is not running")
            return 1
        print(f"daemon running: pid {running.pid}, socket {running.socket}")
        async with DaemonClient.connect() as client:
            print(refused_line(client.hello.refused_connections))
        return 0
    if args.action == "start":
        if running is not None:
            print(f"daemon already running (pid {running.pid})")
            return 0
        status = await lifecycle.start_daemon()
        print(f"daemon started (pid {status.pid}, socket {status.socket})")
        return 0
    if running is None:
        print("daemon is not running")
        return 0
    await lifecycle.stop_daemon()
    print("daemon stopped (agents keep running)")
    return 0

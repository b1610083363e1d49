"""harness: run specs, watch agents, answer checkpoints, manage the daemon.

Every error is one line on stderr and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.control import answer, eval_command, follow, policy_command, trace_commands
from agent.control.launch import start_agents
from agent.control.printable_output import printable_output
from agent.control.slot_lines import list_tag, status_lines
from agent.control.specs import parse_specs, with_model_latency, with_parallel
from agent.core import security_counts
from agent.core.policy.audit import read_counts, status_line
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.daemon.procs import started_at
from common import help_text
from common.credentials import credentials_from
from common.errors import HarnessError
from common.paths import WorkspaceFiles
from common.schemas.auto_accept import AutoAcceptRules, parse_rules
from common.schemas.base import utc_now
from common.schemas.coverage import gaps_line
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.protocol import AgentInfo
from common.schemas.spend import Spend
from common.secrets import hide_secrets_from_proc
from common.untrusted_text import printable_line
from common.workspace import checkpoints
from common.workspace.diff_text import diff_lines
from common.workspace.render import render_checkpoint

Command = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``harness`` console script."""
    # An answer without --checkpoint decides only what was waiting when the command began:
    # for a real start that is the process's start (its re-exec keeps it).
    started = (started_at(os.getpid()) if argv is None else None) or utc_now()
    if argv is None:  # a real start: keep a GitLab token out of /proc/PID/environ
        try:
            argv = hide_secrets_from_proc(sys.argv)[1:]
        except HarnessError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    args = build_parser().parse_args(argv)
    args.started = started
    command: Command = args.command
    with printable_output():  # what a command prints may quote the model: escaped
        try:
            return asyncio.run(command(args))
        except HarnessError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            # The reader went away (``harness logs | head``): stop quietly, as cat does.
            _silence_stdout()
            return 141


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


# --- commands ---------------------------------------------------------------------------


async def cmd_run(args: argparse.Namespace) -> int:
    specs = parse_specs(args.specs)
    if args.model_latency is not None:
        specs = with_model_latency(specs, args.model_latency)
    if args.parallel is not None:
        specs = with_parallel(specs, args.parallel)
    if args.auto_accept:
        specs = [spec.model_copy(update={"auto_accept": AutoAcceptRules.on()}) for spec in specs]
    return await start_agents(specs, wait=args.wait, fresh=args.fresh)


async def cmd_resume(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        info = await client.resume(args.agent, credentials_from(os.environ))
    print(f"{info.name} resumed in {info.workspace}")
    print(f"  log: {info.log_file}")
    if not args.wait:
        return 0
    final = (await follow.wait_until_finished([info.name]))[info.name]
    return 0 if final.status is AgentStatus.DONE else 1


async def cmd_demo(args: argparse.Namespace) -> int:
    # Imported here: the GitLab demo pulls in python-gitlab, which no other command needs.
    from agent.control.demo_command import run_demo

    return await run_demo(args)


async def cmd_list(_args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        agents = await client.list_agents()
        refused = client.hello.refused_connections
    if refused:
        print(f"warning: {_refused_line(refused)}", file=sys.stderr)
    if not agents:
        print("no agents")
        return 0
    print(LIST_HEADER)
    for info in agents:
        print(_one_line(info))
    return 0


async def cmd_status(args: argparse.Namespace) -> int:
    if args.agent is None:
        async with DaemonClient.connect() as client:
            agents = await client.list_agents()
        for line in status_table(agents):
            print(line)
        return 0
    info = await _agent(args.agent)
    print(_one_line(info))
    print(f"  spec:      {info.spec_file}")
    print(f"  project:   {info.project_dir}")
    print(f"  workspace: {info.workspace}")
    print(f"  log:       {info.log_file}")
    print(f"  auto-accept: {info.auto_accept_rules.text()}")
    exit_line = _exit_text(info) + (f" ({printable_line(info.reason)})" if info.reason else "")
    print(f"  exit:      {exit_line}")
    for line in status_lines(info.slots, datetime.now(UTC)):
        print(line)
    if info.set_aside:
        print(f"  set aside: {', '.join(f'#{iid}' for iid in info.set_aside)} (needs-human)")
    for iid, spend in sorted(info.issue_spend.items()):
        print(f"  issue #{iid}: {spend.line()}")
    print(f"  total:     {_progress(info)}; {info.spend.line()}")
    workspace = WorkspaceFiles(info.workspace)
    print(f"  {status_line(read_counts(workspace))}")
    print(f"  secrets:   {security_counts.read(workspace).redactions} redactions")
    return 0


async def cmd_web(args: argparse.Namespace) -> int:
    # Imported here: only this command needs the web server (textual-serve, aiohttp).
    from tui import web

    await web.serve(args.host, args.port, public_url=args.public_url)
    return 0


async def cmd_logs(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    text, end = follow.last_lines(info.log_file, args.lines)
    sys.stdout.write(text)
    if args.follow:
        ended = follow.wait_until_finished([info.name], show_hints=False)
        await follow.follow_log(info.log_file, ended, offset=end)
    return 0


async def cmd_checkpoint(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    found = checkpoints.current(WorkspaceFiles(info.workspace))
    if found is None or found.status != "pending":
        print(f"{info.name}: no checkpoint is waiting")
        return 1
    if args.json:
        # ASCII only: a model-written string keeps its data yet cannot act on a terminal.
        print(json.dumps(found.model_dump(mode="json"), indent=2, ensure_ascii=True))
        return 0
    print(render_checkpoint(found, agent=info.name))
    if args.full:
        print("\n".join(diff_lines(found)))
    return 0


async def cmd_approve(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    decided = answer.approve(
        info.workspace,
        args.choice,
        args.reason,
        checkpoint_id=args.checkpoint,
        not_after=args.started,
    )
    print(f"{info.name}: {decided.type.value} approved")
    return 0


async def cmd_reject(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    decided = answer.reject(
        info.workspace, args.reason, checkpoint_id=args.checkpoint, not_after=args.started
    )
    print(f"{info.name}: {decided.type.value} rejected")
    return 0


async def cmd_stop(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        info = await client.stop(args.agent)
    print(_one_line(info))
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
    print(_one_line(info))
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
            print(_refused_line(client.hello.refused_connections))
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


# --- helpers ----------------------------------------------------------------------------


async def _agent(name: str) -> AgentInfo:
    async with DaemonClient.connect() as client:
        return await client.status(name)


def _refused_line(count: int) -> str:
    """The daemon's refusals (agent sandboxes, their processes, other users), for a person."""
    return (
        f"the daemon refused {count} connection{'s' if count != 1 else ''} from agent processes "
        "or other users since it started (see daemon.log)"
    )


LIST_HEADER = f"{'AGENT':<10} {'STATUS':<8} {'EXIT':<10} {'MODE'} {'PHASE':<20} SPEC"


def _one_line(info: AgentInfo) -> str:
    """One agent in the columns of :data:`LIST_HEADER`."""
    phase = info.phase.value if info.phase else "-"
    mode = info.auto_accept_rules.compact()
    waiting = f" [{info.pending_checkpoint.value}]" if info.pending_checkpoint else ""
    unsandboxed = "" if info.sandboxed else " [UNSANDBOXED]"
    gaps = gaps_line(info.coverage, info.set_aside)
    shown = f" [{printable_line(gaps)}]" if info.exit_state is ExitState.PARTIAL else ""
    return (
        f"{info.name:<10} {info.status.value:<8} {info.exit_state.value:<10} {mode} {phase:<20} "
        f"{info.spec_file.name}{waiting}{list_tag(info.slots)}{unsandboxed}{shown}"
    )


def _exit_text(info: AgentInfo) -> str:
    """``partial: #3 set aside; 1 section uncovered: …`` or the exit state alone."""
    if info.exit_state is ExitState.PARTIAL:
        return f"partial: {printable_line(gaps_line(info.coverage, info.set_aside))}"
    return info.exit_state.value


def _progress(info: AgentInfo) -> str:
    return f"{info.issues_closed} of {info.issues_total} issue(s) closed"


def status_table(agents: list[AgentInfo]) -> list[str]:
    """``harness status`` without an agent: one line per agent with its issues and spend,
    then the total of them all."""
    if not agents:
        return ["no agents"]
    lines = [_one_line(info) + f"\n  {_progress(info)}; {info.spend.line()}" for info in agents]
    total = Spend()
    for info in agents:
        total = total.plus(info.spend)
    closed = sum(info.issues_closed for info in agents)
    issues = sum(info.issues_total for info in agents)
    lines.append(
        f"total: {len(agents)} agent(s), {closed} of {issues} issue(s) closed; {total.line()}"
    )
    return lines


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness", description=help_text.plain(__doc__))
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    def add(name: str, command: Command, help_text: str) -> argparse.ArgumentParser:
        child = sub.add_parser(name, help=help_text, description=help_text)
        child.set_defaults(command=command)
        return child

    run = add("run", cmd_run, "start agents from a JSON array of specs")
    run.add_argument(
        "--specs", required=True, help="JSON array of spec objects, or @FILE to read it from FILE"
    )
    run.add_argument("--auto-accept", action="store_true", help="answer every checkpoint")
    run.add_argument("--wait", action="store_true", help="return when every agent has ended")
    run.add_argument(
        "--fresh",
        action="store_true",
        help="start in a new workspace even if the spec ran before (the old one is kept)",
    )
    run.add_argument(
        "--model-latency",
        metavar="SECONDS",
        help="the embedded model waits this long before each answer, as a real model would "
        "(overrides the specs' model_latency_s)",
    )
    run.add_argument(
        "--parallel",
        metavar="N",
        help="work up to N ready issues at once, each in its own worktree and sandbox "
        "(overrides the specs' parallel; 1 to 8)",
    )
    resume = add("resume", cmd_resume, "continue a stopped or failed agent where it ended")
    resume.add_argument("agent")
    resume.add_argument("--wait", action="store_true", help="return when the agent has ended")

    web = add("web", cmd_web, "serve the TUI to a browser (behind a random token in the URL)")
    web.add_argument("--host", default="localhost", help="address to listen on (localhost)")
    web.add_argument("--port", type=int, default=8765, help="port to listen on (8765)")
    web.add_argument(
        "--public-url", help="the URL browsers use, when it differs (a proxy, a tunnel's port)"
    )

    demo = add("demo", cmd_demo, "run the demo project on the embedded model")
    demo.add_argument("--dir", type=Path, help="where to put the demo (default: a new temp dir)")
    demo.add_argument("--auto-accept", action="store_true", help="answer every checkpoint")
    demo.add_argument("--wait", action="store_true", help="return when the agent has ended")
    demo.add_argument(
        "--gitlab", action="store_true", help="GitLab mode against a local GitLab (implies --wait)"
    )
    demo.add_argument(
        "--faults", type=float, default=0.0, metavar="RATE", help="share of faulted API requests"
    )
    demo.add_argument("--gitlab-url", metavar="URL", help="GitLab mode against this GitLab instead")
    demo.add_argument("--gitlab-project", metavar="GROUP/NAME", help="the project there")

    add("list", cmd_list, "list agents")
    status = add(
        "status", cmd_status, "show one agent (without AGENT: every agent and their total)"
    )
    status.add_argument("agent", nargs="?")
    add("stop", cmd_stop, "stop an agent (harness resume continues it)").add_argument("agent")
    checkpoint = add("checkpoint", cmd_checkpoint, "show the checkpoint waiting for a decision")
    checkpoint.add_argument("agent")
    shown = checkpoint.add_mutually_exclusive_group()
    shown.add_argument(
        "--full",
        action="store_true",
        help="add the unified diff (issue_closure, enrichment_scope…), escaped",
    )
    shown.add_argument("--json", action="store_true", help="the checkpoint as JSON")
    remove = add("remove", cmd_remove, "forget an ended agent (its workspace is kept)")
    which = remove.add_mutually_exclusive_group(required=True)
    which.add_argument("agent", nargs="?")
    which.add_argument(
        "--finished", action="store_true", help="forget every done, failed or stopped agent"
    )
    logs = add("logs", cmd_logs, "print the end of an agent's log")
    logs.add_argument("agent")
    logs.add_argument(
        "-n",
        "--lines",
        type=follow.line_count,
        default=100,
        metavar="N",
        help="how many lines (default 100)",
    )
    logs.add_argument(
        "-f", "--follow", action="store_true", help="keep printing new lines until the agent ends"
    )
    approve = add("approve", cmd_approve, "approve the waiting checkpoint")
    approve.add_argument("agent")
    approve.add_argument(
        "--choice",
        help="issue iid(s), a regression action, a budget action (raise[:USD]), at "
        "issue_closure a choice per flagged file (approve=PATH;exclude=PATH, PATH * for the rest), "
        "or at spec_to_issues what issues depend on (depends=3:1,2;4:)",
    )
    approve.add_argument("--reason", help="a note recorded with the decision")
    approve.add_argument("--checkpoint", metavar="ID", help="answer only this checkpoint")
    reject = add("reject", cmd_reject, "reject the waiting checkpoint")
    reject.add_argument("agent")
    reject.add_argument("--reason", help="feedback for the next attempt")
    reject.add_argument("--checkpoint", metavar="ID", help="answer only this checkpoint")
    auto = add("auto-accept", cmd_auto_accept, "set an agent's auto-accept rules")
    auto.add_argument("agent")
    auto.add_argument(
        "mode",
        metavar="on|off|TYPE=approve|ask,…",
        help="on, off, or per checkpoint type (default= for the others), e.g. "
        "issue_closure=ask,default=approve; entries change the rules in force",
    )
    trace_commands.add_parsers(add)
    eval_command.add_parser(add)
    policy_command.add_parser(add)
    daemon = add("daemon", cmd_daemon, "start, stop or check the daemon")
    daemon.add_argument("action", choices=("start", "stop", "status"))
    return parser


if __name__ == "__main__":
    sys.exit(main())

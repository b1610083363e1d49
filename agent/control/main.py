"""``harness``: run specs, watch agents, answer checkpoints, manage the daemon.

Every error is one line on stderr and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from agent.control import answer, follow
from agent.control.demo import (
    attach_gitlab,
    attach_local_gitlab,
    gitlab_report,
    local_gitlab,
    prepare_demo,
)
from agent.control.specs import parse_specs
from agent.core import checkpoints, git
from agent.core.render import render_checkpoint
from agent.core.workspace import validate_spec
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.tracker.factory import TOKEN_VARIABLE
from common.atomic import read_model_or_none
from common.errors import HarnessError, SpecError
from common.paths import WorkspaceFiles, workspace_dir
from common.schemas.agent_state import AgentState
from common.schemas.daemon_state import AgentStatus
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import AgentInfo
from common.schemas.spec import AgentSpec
from common.secrets import hide_secrets_from_proc

Command = Callable[[argparse.Namespace], Coroutine[Any, Any, int]]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``harness`` console script."""
    if argv is None:  # a real start: keep a GitLab token out of /proc/PID/environ
        try:
            argv = hide_secrets_from_proc(sys.argv)[1:]
        except HarnessError as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    args = build_parser().parse_args(argv)
    command: Command = args.command
    try:
        return asyncio.run(command(args))
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


# --- commands ---------------------------------------------------------------------------


async def cmd_run(args: argparse.Namespace) -> int:
    specs = parse_specs(args.specs)
    if args.auto_accept:
        specs = [spec.model_copy(update={"auto_accept": True}) for spec in specs]
    return await start_agents(specs, wait=args.wait)


async def cmd_demo(args: argparse.Namespace) -> int:
    gitlab = args.gitlab or args.gitlab_url is not None
    if not gitlab and (args.faults or args.gitlab_project):
        raise SpecError("--faults and --gitlab-project go with --gitlab")
    if (args.gitlab_url is None) != (args.gitlab_project is None):
        raise SpecError("--gitlab-url and --gitlab-project go together")
    if args.faults and args.gitlab_url is not None:
        raise SpecError("--faults works with the local GitLab only (not with --gitlab-url)")
    if not 0.0 <= args.faults <= 1.0:
        raise SpecError(f"--faults {args.faults} is not between 0 and 1")
    if args.gitlab_url is not None and not os.environ.get(TOKEN_VARIABLE):
        raise SpecError(f"--gitlab-url needs {TOKEN_VARIABLE} (a token with the api scope)")
    spec = prepare_demo(args.dir, args.auto_accept, file_only=not gitlab)
    print(f"demo project: {spec.project_dir}")
    print(f"demo spec:    {spec.spec_file}")
    if gitlab:
        return await _gitlab_demo(spec, args)
    code = await start_agents([spec], wait=args.wait)
    if args.wait:
        print(_demo_summary(spec))
    return code


async def _gitlab_demo(spec: AgentSpec, args: argparse.Namespace) -> int:
    """The demo in GitLab mode, on a daemon of its own that has the token in its environment.

    The command waits for the run (it serves the local GitLab meanwhile), prints what
    GitLab holds, then stops that daemon: the user's daemon never sees the token.
    """
    with contextlib.ExitStack() as stack:
        if args.gitlab_url is None:
            server = stack.enter_context(
                local_gitlab(spec.project_dir.parent / "gitlab", args.faults)
            )
            target = attach_local_gitlab(spec, server)
            faults = f", {args.faults:.0%} of API requests faulted" if args.faults else ""
            print(f"local GitLab: {server.url}/{target.project_path}{faults}")
        else:
            target = attach_gitlab(spec, args.gitlab_url, args.gitlab_project)
            print(f"GitLab: {target.api_url} project {target.project_path}")
        home = Path(tempfile.mkdtemp(prefix="hg", dir="/tmp"))
        stack.callback(shutil.rmtree, home, True)
        stack.enter_context(_environment({"HARNESS_HOME": str(home), **target.environment()}))
        print(
            f"this demo runs on its own daemon; answer its checkpoints with "
            f"HARNESS_HOME={home} harness approve agent_1 (or its TUI)"
        )
        try:
            code = await start_agents([spec], wait=True)
        finally:
            await _stop_private_daemon()
        print(_demo_summary(spec))
        print(await gitlab_report(spec, target))
        return code


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


async def _stop_private_daemon() -> None:
    """Stop the demo's agents (they would outlive their GitLab) and its daemon."""
    if lifecycle.daemon_running() is None:
        return
    async with DaemonClient.connect() as client:
        for info in await client.list_agents():
            if info.status not in follow.FINISHED:
                await client.stop(info.name)
    await lifecycle.stop_daemon()


async def start_agents(specs: list[AgentSpec], *, wait: bool) -> int:
    """Hand specs to the daemon (starting it if needed); with ``wait``, follow them to the end."""
    for spec in specs:
        validate_spec(spec)  # refuse bad input before anything starts
    if lifecycle.daemon_running() is None:
        status = await lifecycle.start_daemon()
        print(f"daemon started (pid {status.pid})")
    names: list[str] = []
    async with DaemonClient.connect() as client:
        for spec in specs:
            info = await client.start(spec)
            names.append(info.name)
            print(f"{info.name} started: {spec.spec_file.name} in {spec.project_dir}")
            print(f"  log: {info.log_file}")
    if not wait:
        return 0
    final = await follow.wait_until_finished(names)
    failed = [info for info in final.values() if info.status is not AgentStatus.DONE]
    for info in failed:
        print(f"{info.name}: {info.status.value}" + (f" — {info.reason}" if info.reason else ""))
    return 0 if not failed else 1


async def cmd_list(_args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        agents = await client.list_agents()
    if not agents:
        print("no agents")
    for info in agents:
        print(_one_line(info))
    return 0


async def cmd_status(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    print(_one_line(info))
    print(f"  spec:      {info.spec_file}")
    print(f"  project:   {info.project_dir}")
    print(f"  workspace: {info.workspace}")
    print(f"  log:       {info.log_file}")
    if info.reason:
        print(f"  reason:    {info.reason}")
    return 0


async def cmd_logs(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    if args.follow:
        await follow.follow_log(info.log_file)
    else:
        sys.stdout.write(follow.LogTail(info.log_file).read_new())
    return 0


async def cmd_checkpoint(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    found = checkpoints.current(WorkspaceFiles(info.workspace))
    if found is None or found.status != "pending":
        print(f"{info.name}: no checkpoint is waiting")
        return 1
    print(render_checkpoint(found))
    return 0


async def cmd_approve(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    decided = answer.approve(
        info.workspace, args.choice, args.reason, checkpoint_id=args.checkpoint
    )
    print(f"{info.name}: {decided.type.value} approved")
    return 0


async def cmd_reject(args: argparse.Namespace) -> int:
    info = await _agent(args.agent)
    decided = answer.reject(info.workspace, args.reason, checkpoint_id=args.checkpoint)
    print(f"{info.name}: {decided.type.value} rejected")
    return 0


async def cmd_stop(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        info = await client.stop(args.agent)
    print(_one_line(info))
    return 0


async def cmd_remove(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        await client.remove(args.agent)
    print(f"{args.agent} removed")
    return 0


async def cmd_auto_accept(args: argparse.Namespace) -> int:
    async with DaemonClient.connect() as client:
        info = await client.set_auto_accept(args.agent, args.mode == "on")
    print(_one_line(info))
    return 0


async def cmd_daemon(args: argparse.Namespace) -> int:
    running = lifecycle.daemon_running()
    if args.action == "status":
        if running is None:
            print("daemon is not running")
            return 1
        print(f"daemon running: pid {running.pid}, socket {running.socket}")
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


def _one_line(info: AgentInfo) -> str:
    phase = info.phase.value if info.phase else "-"
    mode = "AUTO" if info.auto_accept else "HITL"
    waiting = f" [{info.pending_checkpoint.value}]" if info.pending_checkpoint else ""
    return (
        f"{info.name:<10} {info.status.value:<8} {mode} {phase:<20} {info.spec_file.name}{waiting}"
    )


def _demo_summary(spec: AgentSpec) -> str:
    project = spec.project_dir
    files = WorkspaceFiles(workspace_dir(project, spec.spec_file))
    state = read_model_or_none(files.state, AgentState)
    milestone = read_model_or_none(files.milestone, FileMilestone)
    branch = git.current_branch(project)
    log = git.git(project, "log", "--format=  %h %s", f"{spec.target_branch}..HEAD", check=False)
    lines = [f"\nbranch {branch} in {project}:", log or "  (no commits)"]
    if milestone is not None:
        closed = sum(issue.state == "closed" for issue in milestone.issues)
        lines.append(f"issues: {closed} of {len(milestone.issues)} closed ({files.milestone})")
        if milestone.merge_request is not None:
            lines.append(
                f"merge request !{milestone.merge_request.iid}: {milestone.merge_request.title}"
            )
    if state is not None and state.last_test_run is not None:
        lines.append(f"tests on the branch: {state.last_test_run.summary}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="harness", description=__doc__)
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    def add(name: str, command: Command, help_text: str) -> argparse.ArgumentParser:
        child = sub.add_parser(name, help=help_text, description=help_text)
        child.set_defaults(command=command)
        return child

    run = add("run", cmd_run, "start agents from a JSON array of specs")
    run.add_argument("--specs", required=True, help="JSON array of spec objects")
    run.add_argument("--auto-accept", action="store_true", help="answer every checkpoint")
    run.add_argument("--wait", action="store_true", help="return when every agent has ended")

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
    for name, command, text in (
        ("status", cmd_status, "show one agent"),
        ("checkpoint", cmd_checkpoint, "show the checkpoint waiting for a decision"),
        ("stop", cmd_stop, "stop an agent (it can be started again and resumes)"),
        ("remove", cmd_remove, "forget a stopped agent"),
    ):
        add(name, command, text).add_argument("agent")
    logs = add("logs", cmd_logs, "print an agent's log")
    logs.add_argument("agent")
    logs.add_argument("-f", "--follow", action="store_true", help="keep printing new lines")
    approve = add("approve", cmd_approve, "approve the waiting checkpoint")
    approve.add_argument("agent")
    approve.add_argument("--choice", help="issue iid(s), or a regression action")
    approve.add_argument("--reason", help="a note recorded with the decision")
    approve.add_argument("--checkpoint", metavar="ID", help="answer only this checkpoint")
    reject = add("reject", cmd_reject, "reject the waiting checkpoint")
    reject.add_argument("agent")
    reject.add_argument("--reason", help="feedback for the next attempt")
    reject.add_argument("--checkpoint", metavar="ID", help="answer only this checkpoint")
    auto = add("auto-accept", cmd_auto_accept, "switch auto-accept for an agent")
    auto.add_argument("agent")
    auto.add_argument("mode", choices=("on", "off"))
    daemon = add("daemon", cmd_daemon, "start, stop or check the daemon")
    daemon.add_argument("action", choices=("start", "stop", "status"))
    return parser


if __name__ == "__main__":
    sys.exit(main())

"""``harness demo``: lay out the demo, run it (file-only or against a GitLab), report."""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from agent.control import follow
from agent.control.launch import start_agents
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from agent.frontend.demo import (
    TEXTKIT,
    WEB,
    attach_gitlab,
    attach_local_gitlab,
    gitlab_report,
    local_gitlab,
    prepare_demo,
)
from agent.model.playbook import IGNORES_FEEDBACK
from agent.tracker.factory import TOKEN_VARIABLE
from common.atomic import read_model_or_none
from common.environment import environment_for_block
from common.errors import SpecError
from common.paths import WorkspaceFiles, workspace_dir
from common.schemas.agent_state import AgentState
from common.schemas.milestone import FileMilestone
from common.schemas.spec import AgentSpec
from common.workspace import git


async def run_demo(args: argparse.Namespace) -> int:
    """``harness demo``: the demo project on the embedded model (file-only or GitLab)."""
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
    kind = WEB if args.web else TEXTKIT
    spec = prepare_demo(args.dir, args.auto_accept, file_only=not gitlab, kind=kind)
    print(f"demo project: {spec.project_dir}")
    print(f"demo spec:    {spec.spec_file}")
    print(f"note: {IGNORES_FEEDBACK}")
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
        stack.enter_context(
            environment_for_block({"HARNESS_HOME": str(home), **target.environment()})
        )
        print(
            f"this demo runs on its own daemon; answer its checkpoints with "
            f"HARNESS_HOME={home} harness approve agent_1 (or its TUI)"
        )
        try:
            code = await start_agents([spec], wait=True, detached=False)
        finally:
            await _stop_private_daemon()
        print(_demo_summary(spec))
        print(await gitlab_report(spec, target))
        return code


async def _stop_private_daemon() -> None:
    """Stop the demo's agents (they would outlive their GitLab) and its daemon."""
    if lifecycle.daemon_running() is None:
        return
    async with DaemonClient.connect() as client:
        for info in await client.list_agents():
            if info.status not in follow.FINISHED:
                await client.stop(info.name)
    await lifecycle.stop_daemon()


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

"""PROJECT_VERIFICATION, the Initializer's first phase: the repository, the tracker, the
credentials, the model endpoint and the tests are checked before anything is created.

What a person approves here (the test command, the quality gates' baseline, the
repository's network hosts and MCP servers, its outbound and notify settings) is
recorded in the state once and never read from the repository again.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.core import faultpoints
from agent.core.gates import gates, presets
from agent.core.gates.gates import classify_baseline
from agent.core.git import agit
from agent.core.run import integrity, network_access
from agent.core.run.orchestrator import Run
from agent.core.run.webhook import aim_approved, shown_target
from agent.sandbox.plan import SYSTEM_DIRS
from common.errors import ProjectBrokenError
from common.paths import WORKSPACE_ROOT_NAME
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    ProjectVerificationCheckpoint,
    ProjectVerificationContext,
)
from common.schemas.gates import TestRun
from common.schemas.mcp_server import McpServer
from common.schemas.notify import NotifyTargets
from common.schemas.outbound import OutboundSettings, merged
from common.schemas.quality import SETTINGS_FILE


async def project_verification(run: Run) -> None:
    """Check repository, tracker, credentials and tests before anything is created."""
    spec = run.spec
    project = spec.project_dir

    async def build(checkpoint_id: str) -> Checkpoint:
        warnings = await _model_warnings(run)  # first: a dead endpoint ends the run in seconds
        warnings += await run.tracker.verify()
        test_command = spec.test_command or run.project_env.test_command
        baseline = await run.tests(test_command) if test_command else None
        if test_command is None and run.project_env.missing:
            warnings.append(run.project_env.missing)
        if baseline is not None:
            verdict = classify_baseline(baseline)
            if verdict.outcome == "cannot_run":
                raise ProjectBrokenError(
                    f"the project's tests cannot run: `{test_command}` says {verdict.reason} "
                    f"(environment: {run.project_env.kind}); give the project a .venv with "
                    'its test dependencies, or set "test_command" in the spec'
                )
            if verdict.outcome == "fails":
                failing = ", ".join(baseline.failed_tests) or baseline.summary
                warnings.append(
                    f"the test suite fails before any change ({baseline.summary}); these "
                    f"failures are pre-existing and never counted against the agent: {failing}"
                )
        checks = await agit.off_loop(presets.decide, project, run.project_env, spec.quality)
        warnings += checks.unavailable
        check_runs = await _check_baseline(run, checks.commands)
        for name, result in check_runs.items():
            if not result.passed:
                warnings.append(
                    f"check {name} (`{result.command}`) fails before any change: reported, "
                    "never counted against the agent"
                )
        sandbox = run.state.sandbox_layout
        if sandbox is not None:
            warnings += [f"left out of the sandbox: {note}" for note in sandbox.left_out]
        uncommitted = [
            path
            for path in await agit.uncommitted_for_people(project)
            if not path.startswith(WORKSPACE_ROOT_NAME)
        ]
        if uncommitted:
            warnings.append(f"{len(uncommitted)} uncommitted change(s) will never be committed")
        # Off the loop: they read the project's .harness.json (common.safe_read).
        outbound = await agit.off_loop(outbound_settings, run)
        notify = await agit.off_loop(repo_notify, run)
        repo_hosts, repo_servers = await agit.off_loop(network_access.repo_entries, project)
        warnings += _network_warnings(run, repo_hosts, repo_servers)
        machine = run.state.machine_limits  # the agent's start probed this machine
        if machine is not None:
            warnings += [f"limit not set on this machine: {line}" for line in machine.not_set]
        context = ProjectVerificationContext(
            project_dir=str(project),
            current_branch=await agit.current_branch(project),
            target_branch=spec.target_branch,
            feature_branch=run.info.feature_branch,
            head_commit=await agit.head_commit(project),
            tracker=run.tracker.kind,
            test_command=test_command,
            baseline_tests=baseline,
            quality_checks=check_runs,
            uncommitted=uncommitted,
            warnings=warnings,
            outbound=outbound,
            notify=notify,
            sandbox_hosts=repo_hosts,
            mcp_servers=repo_servers,
        )
        done = [
            f"{project} is a git repository; target branch {spec.target_branch} exists",
            f"issue tracker ({run.tracker.kind}) is reachable",
        ]
        if sandbox is not None:
            shown = ", ".join(str(path) for path in sandbox.read_only) or "none"
            done.append(f"sandbox layout recorded: extra read-only folders {shown}")
        if machine is not None and machine.held:
            done.append(f"limits in force: {'; '.join(machine.held)}")
        if baseline is not None:
            done.append(f"baseline test run: {baseline.summary}")
        for name, result in check_runs.items():
            outcome = "passes" if result.passed else "fails"
            done.append(f"baseline check {name} (`{result.command}`): {outcome}")
        done.append(
            f"outbound review: files over {outbound.max_file_bytes:,} bytes, issues over "
            f"{outbound.max_diff_lines:,} lines or {outbound.max_diff_files} files, "
            f"{len(outbound.protected_paths)} protected path(s) besides the defaults"
        )
        if notify is not None and notify.webhook is not None:
            done.append(
                f"webhook from {SETTINGS_FILE}: {shown_target(notify.webhook)} will hear of "
                "waiting checkpoints (their one-line summary), reminders, timeouts and the end"
            )
        done += _network_lines(run, repo_hosts, repo_servers)
        return ProjectVerificationCheckpoint(
            id=checkpoint_id,
            what_happened=done,
            to_decide="Start work on this project with this configuration?",
            if_approved="The specification is broken into issues",
            if_rejected="The run ends; nothing is created",
            context=context,
        )

    checkpoint = await run.desk.ask(CheckpointType.PROJECT_VERIFICATION, build)
    assert isinstance(checkpoint, ProjectVerificationCheckpoint)
    decision = checkpoint.decision
    assert decision is not None
    faultpoints.reached("project_verification.decided")
    if decision.approved:
        context = checkpoint.context
        git_config = await agit.off_loop(integrity.config_text, project)
        target_head = await agit.off_loop(integrity.head_of, project, spec.target_branch)
        with run.store.moving(Phase.SPEC_TO_ISSUES) as state:
            state.test_command = context.test_command
            state.project_baseline = context.baseline_tests
            state.git_config = git_config
            state.target_head = target_head
            state.quality_checks = {name: r.command for name, r in context.quality_checks.items()}
            state.check_baseline = context.quality_checks
            state.project_env_kind = run.project_env.kind
            state.project_env_variables = run.project_env.variables
            state.project_env_root = run.project_env.root
            # What the person approved, not the file as it is now: read once, in build().
            state.outbound = context.outbound or outbound_settings(run)
            state.notify = context.notify
            # As shown and approved; .harness.json is never read for them again.
            state.repo_sandbox_hosts = context.sandbox_hosts
            state.repo_mcp_servers = context.mcp_servers
        network_access.apply(run.sessions, spec, run.state, run.host_access)
        aim_approved(run.desk.webhook, context.notify, os.environ)
    else:
        reason = f"rejected at project_verification by {decision.decided_by}"
        if decision.reason:
            reason += f": {decision.reason}"
        run.store.fail(reason)


def _network_lines(run: Run, repo_hosts: list[str], repo_servers: list[McpServer]) -> list[str]:
    """What the sandbox will reach and which MCP servers the sessions get, for the person:
    the spec's and, marked, the repository's (approved here or never used)."""
    spec = run.spec
    lines = [server.summary() for server in spec.mcp_servers]
    lines += [f"{server.summary()} (from {SETTINGS_FILE})" for server in repo_servers]
    if spec.sandbox_hosts:
        lines.append(f"the sandbox may reach {', '.join(spec.sandbox_hosts)} (spec)")
    if repo_hosts:
        lines.append(f"the sandbox may reach {', '.join(repo_hosts)} (from {SETTINGS_FILE})")
    return lines


def _network_warnings(run: Run, repo_hosts: list[str], repo_servers: list[McpServer]) -> list[str]:
    """Entries of ``.harness.json`` that would change nothing where the agent runs, and
    stdio servers whose program the sandbox does not show."""
    spec = run.spec
    warnings: list[str] = []
    if repo_hosts and (spec.sandbox_network or not spec.sandbox):
        where = "the host's network" if spec.sandbox else "no sandbox"
        warnings.append(f"sandbox_hosts of {SETTINGS_FILE} change nothing with {where}")
    shadowed = {server.name for server in spec.mcp_servers} & {s.name for s in repo_servers}
    warnings += [
        f"MCP server {name} of {SETTINGS_FILE} is not used: the spec names its own"
        for name in sorted(shadowed)
    ]
    if spec.sandbox:
        layout = run.state.sandbox_layout
        visible = [Path(d) for d in SYSTEM_DIRS] + (layout.read_only if layout else [])
        for server in [*spec.mcp_servers, *repo_servers]:
            for path in network_access.unseen_paths(server, spec.project_dir, visible):
                warnings.append(
                    f"MCP server {server.name}: {path} is not in the sandbox (only the "
                    "project and the system folders are); the server will not start"
                )
    return warnings


def outbound_settings(run: Run) -> OutboundSettings:
    """The outbound review's settings: the spec's and the repository's ``.harness.json``
    as it is now, before any session (the model may write that file later: it is read
    here only, and recorded in the state)."""
    repo = presets.load_repo_settings(run.spec.project_dir)
    return merged(run.spec.outbound, repo.outbound if repo is not None else None)


def repo_notify(run: Run) -> NotifyTargets | None:
    """The repository's webhook as ``.harness.json`` says it now, before any session, to
    be shown and approved at project_verification (``None``: none, or the spec names its
    own, which wins). Never read again: the model may write that file later."""
    if run.spec.notify is not None and run.spec.notify.webhook is not None:
        return None
    repo = presets.load_repo_settings(run.spec.project_dir)
    return repo.notify if repo is not None else None


async def _check_baseline(run: Run, commands: dict[str, str]) -> dict[str, TestRun]:
    """Each quality check on the project as it is, before any change."""
    if run.spec.skip_test_suite:
        return {}
    environ = run.project_env.environ(os.environ)
    results: dict[str, TestRun] = {}
    for name, command in commands.items():
        results[name] = await gates.run_tests(
            run.spec.project_dir, command, environ, wrap=run.gates.command_wrap
        )
        run.log(f"baseline check {name}: {results[name].summary}")
    return results


async def _model_warnings(run: Run) -> list[str]:
    """Probe the model endpoint (one cheap request through the agent's proxy).

    The credentials were checked before the agent started (client, daemon and
    ``agent.process``); this finds out whether the endpoint answers and accepts them.

    Raises:
        ModelEndpointError: unreachable, or the credentials were refused.
    """
    if run.model_check is None:  # the embedded model
        return []
    return await run.model_check()

"""One agent's run, from its workspace: what is read and settled once at the start, then
the phase machine with its model, its sandbox and its sessions' configuration."""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.core.browser.launch import browser_servers, prepare_browser
from agent.core.log import AgentLog
from agent.core.policy import PolicyContext, audit
from agent.core.run import network_access, phases
from agent.core.run.orchestrator import Outcome, Run
from agent.core.run.webhook import Webhook, agent_webhook, announcing_end
from agent.core.runner import run_to_end
from agent.core.session.entrances import own_entrances
from agent.core.session.hooks import PolicySetup
from agent.core.session.mcp_servers import agent_servers
from agent.core.session.research import ResearchConfig
from agent.core.session.sandboxing import (
    SessionLaunch,
    check_sandbox,
    disk_baseline,
    session_launch,
)
from agent.core.session.session import SessionConfig
from agent.core.session.session_limits import SessionLimits
from agent.core.trace import spans
from agent.core.trace.trace import trace_path, tracing
from agent.core.words.secrecy import Secrecy
from agent.model.playbook import IGNORES_FEEDBACK
from agent.process.model_access import ModelAccess, embedded_name, model_environment
from agent.sandbox import layout as sandbox_layout
from agent.sandbox.protected import ProtectedPlaces
from agent.tracker.base import IssueTracker
from agent.tracker.factory import make_tracker
from agent.tracker.redacting import RedactingTracker
from common import decision_mac, paths
from common.atomic import read_model_or_none, write_model
from common.credentials import credentials_from, without_credentials
from common.errors import HarnessError
from common.paths import AGENT_NAME_VARIABLE, WorkspaceFiles
from common.project_env import ProjectEnv
from common.project_env import detect as detect_project_env
from common.project_env import pinned as pinned_project_env
from common.schemas.agent_state import AgentState, Phase
from common.schemas.spend import Spend
from common.schemas.workspace import WorkspaceInfo
from common.secrets import HIDDEN_VARIABLES
from common.workspace import special_files
from common.workspace.setup import load_info


@dataclass(frozen=True)
class AgentStart:
    """What the run is started with: read, checked and made once, before its model."""

    files: WorkspaceFiles
    info: WorkspaceInfo
    state: AgentState
    tracker: IssueTracker
    project_env: ProjectEnv
    log: AgentLog
    credentials: dict[str, str]
    """The starting client's Claude credentials: for the model proxy alone."""
    key: bytes
    """The decision key, read at start."""
    secrecy: Secrecy
    bwrap: Path | None
    """The bubblewrap the sessions run in (``None``: the spec runs them unsandboxed)."""
    places: ProtectedPlaces
    worktrees: Path
    webhook: Webhook | None
    research: ResearchConfig | None


async def run_agent(
    files: WorkspaceFiles,
    log: AgentLog,
    secrets: dict[str, str] | None = None,
    *,
    resume: bool = False,
    decision_key: bytes | None = None,
    places: ProtectedPlaces | None = None,
    worktrees: Path | None = None,
    web_link_file: Path | None = None,
    research: ResearchConfig | None = None,
    telemetry: Mapping[str, str] | None = None,
) -> tuple[Outcome, str]:
    """Load the workspace and run the phase machine.

    ``secrets`` hold the GitLab token (for the tracker alone) and the Claude
    credentials (for the model proxy alone). With ``resume`` (``harness resume``), a
    failed run gets a fresh chance in the phase it failed in (see
    :func:`agent.core.run.phases.resume_after_failure`). ``decision_key`` is the key read
    at start (default: read now from ``HARNESS_HOME``); ``places`` the sandbox's deny
    list, taken at start too (default: from the environment now); ``web_link_file``
    where ``harness web`` records its link, named at start too (``None``: no link);
    ``telemetry`` the ``OTEL_*`` settings of whoever started the agent (spans are exported
    when they name an endpoint; :mod:`agent.core.trace.spans`).
    """
    secrets = secrets or {}
    key = decision_key if decision_key is not None else decision_mac.load_key()
    info = load_info(files.root)
    places = places or ProtectedPlaces.of_this_process()
    state, bwrap = await starting_state(files, info, log, places, resume=resume)
    hidden = [value for name, value in secrets.items() if name in HIDDEN_VARIABLES and value]
    secrecy = Secrecy(files, [*hidden, *(research.secrets() if research else [])])
    log.redact_with(secrecy.text)
    tracker = RedactingTracker(
        make_tracker(info, files, without_credentials(secrets), os.environ, log=log), secrecy.text
    )
    project_env = project_environment(info, state, log)
    secret_values = [value for value in secrets.values() if value]
    secret_values += research.secrets() if research else []  # the trace redacts it too
    agent_name = os.environ.get(AGENT_NAME_VARIABLE) or files.root.name
    webhook = agent_webhook(
        info.spec.notify, state.notify, os.environ, log, web_link_file, agent=agent_name
    )
    start = AgentStart(
        files=files,
        info=info,
        state=state,
        tracker=tracker,
        project_env=project_env,
        log=log,
        credentials=credentials_from(secrets),
        key=key,
        secrecy=secrecy,
        bwrap=bwrap,
        places=places,
        worktrees=worktrees or paths.worktrees_dir(files.root),
        webhook=webhook,
        research=research,
    )
    with (
        tracing(trace_path(files), secret_values),
        spans.exporting(telemetry or {}, agent_name, log),
    ):
        async with announcing_end(webhook, files) as ended:
            outcome = await run_started(start)
            ended.outcome = outcome
        spans.run_ended(outcome[0], spend_of(files))
        return outcome


async def starting_state(
    files: WorkspaceFiles,
    info: WorkspaceInfo,
    log: AgentLog,
    places: ProtectedPlaces,
    *,
    resume: bool,
) -> tuple[AgentState, Path | None]:
    """The state the run starts from, and the bubblewrap its sessions run in.

    A failed run resumed gets its fresh chance; the sandbox's layout and the disk budget's
    baseline are settled before any session (each written to the state at once).
    """
    state = read_model_or_none(files.state, AgentState) or AgentState()
    if resume and state.phase is Phase.FAILED:
        state = phases.resume_after_failure(state, "resumed by `harness resume`")
        write_model(files.state, state)
        log(f"resuming the failed run in {state.phase.value}")
    log(f"agent for {info.spec.spec_file.name} in {info.spec.project_dir}, phase {state.phase}")
    for line in await asyncio.to_thread(special_files.defuse, info.spec.project_dir):
        log(line)  # before any git: a FIFO named .gitignore would hold every git call
    bwrap = check_sandbox(info.spec)  # first: no unsandboxed session if it cannot run
    if bwrap is not None:
        layout = sandbox_layout.at_start(
            state.sandbox_layout,
            state.phase is Phase.PROJECT_VERIFICATION,
            info.spec.project_dir,
            places,
            network=info.spec.sandbox_network,
            log=log,
        )
        if layout != state.sandbox_layout:
            state = state.model_validate({**state.model_dump(), "sandbox_layout": layout})
            write_model(files.state, state)
    if state.disk_baseline is None and info.spec.limits.disk_mb is not None:
        # Once, at the run's first start: the disk budget counts from the project's size then.
        baseline = await asyncio.to_thread(disk_baseline, info.spec.project_dir, log)
        state = state.model_validate({**state.model_dump(), "disk_baseline": baseline})
        write_model(files.state, state)
    return state, bwrap


def project_environment(info: WorkspaceInfo, state: AgentState, log: AgentLog) -> ProjectEnv:
    """The project's environment as detected now, pinned to what a person approved."""
    project_env, changed = pinned_project_env(
        detect_project_env(info.spec.project_dir, os.environ),
        state.project_env_kind,
        state.project_env_variables,
        state.test_command,
        state.project_env_root,
    )
    log(changed or f"project environment: {project_env.kind}")
    return project_env


async def run_started(start: AgentStart) -> tuple[Outcome, str]:
    """The phase machine, with the model and the sessions' sandbox up around it."""
    spec, state, files = start.info.spec, start.state, start.files
    async with (
        model_environment(spec, start.log, start.credentials, files) as access,
        session_launch(
            spec,
            start.bwrap,
            access.env,
            start.log,
            state.sandbox_layout,
            start.places,
            on_host_refusal=functools.partial(audit.record_host_refusal, files),
            baseline_kb=state.disk_baseline.kb if state.disk_baseline else None,
        ) as launch,
    ):
        if launch.sandbox is not None:
            launch.sandbox.slot_read_only = start.project_env.folders_in(spec.project_dir)
        run = Run.create(
            files=files,
            info=start.info,
            state=state,
            tracker=start.tracker,
            sessions=await session_config(start, access, launch),
            log=start.log,
            project_env=start.project_env,
            model_check=access.check,
            spec_refusal=access.spec_refusal,
            decision_key=start.key,
            secrecy=start.secrecy,
            command_wrap=launch.wrap,
            layout_keeper=launch.keeper,
            worktrees=start.worktrees,
            webhook=start.webhook,
            host_access=launch.host_access,
            # Each gate sees the work tree as an overlay where the kernel allows one.
            gate_overlays=launch.sandbox is not None and launch.sandbox.overlays,
        )
        if spec.uses_local_model:  # a rejection's feedback changes none of its answers
            run.desk.feedback_note = IGNORES_FEEDBACK
        with run.store.editing() as recorded:  # what holds here: for the person to see
            recorded.machine_limits = launch.machine
        # The spec's hosts (and the repository's as approved), through the filtering proxy.
        network_access.apply(run.sessions, spec, state, run.host_access)
        return await run_to_end(run)


async def session_config(
    start: AgentStart, access: ModelAccess, launch: SessionLaunch
) -> SessionConfig:
    """How every session of the run reaches its model, in which sandbox, with which tools."""
    spec, state = start.info.spec, start.state
    browser = await asyncio.to_thread(prepare_browser, spec, launch.sandbox, start.log)
    # The CLI and the model's Bash see the project's environment (PATH, VIRTUAL_ENV).
    return SessionConfig(
        project_dir=spec.project_dir,
        model=access.model,
        env={**start.project_env.variables, **launch.env},
        local_model=spec.uses_local_model,
        model_name=embedded_name(spec.playbook) if spec.uses_local_model else None,
        meter=access.meter,
        cli_path=launch.cli_path,
        sandboxed=launch.sandboxed,
        limits=session_limits(launch, state),
        # Issues in parallel: each session reaches the model by an entrance of its own,
        # in a sandbox bound to its work tree (a slot's worktree).
        entrance=(
            own_entrances(access.proxy, launch.sandbox)
            if spec.parallel > 1 and launch.sandbox is not None
            else None
        ),
        max_turns=spec.budgets.turns_per_session,
        research=start.research,
        # The browser (built in), the spec's, and the repository's as approved at
        # project_verification.
        browser=browser,
        mcp_servers=agent_servers(spec, state, browser_servers(browser)),
        policy=PolicySetup(
            PolicyContext.for_project(
                spec.project_dir,
                spec.policy,
                spec.test_command or start.project_env.test_command,
                sandboxed=start.bwrap is not None,  # check_sandbox probed it: it runs
            ),
            start.files,
        ),
    )


def session_limits(launch: SessionLaunch, state: AgentState) -> SessionLimits | None:
    """Where each session's launcher reports a limit, and since when the run's files
    count (``None``: no launcher in front of the sessions)."""
    if launch.limit_reports is None:
        return None
    baseline = state.disk_baseline
    since = int(baseline.at.timestamp() * 1e9) if baseline is not None else None
    return SessionLimits(launch.limit_reports, since)


def spend_of(files: WorkspaceFiles) -> Spend:
    """The run's spend as the state last recorded it (for the run's span)."""
    try:
        state = read_model_or_none(files.state, AgentState)
    except HarnessError:
        return Spend()
    return state.spend if state is not None else Spend()

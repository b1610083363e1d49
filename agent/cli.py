"""``python -m agent.cli --workspace DIR``: one agent, from its workspace to DONE.

Started by the daemon in its own process session, with stdout and stderr going
to the agent's log file. It writes its exit status to the workspace before it
ends, so that a daemon restarted later can tell how it finished.

The daemon hands it the GitLab token and the Claude credentials of the client
that started it through a pipe (``--secrets-fd N``); started by hand with them in
its environment, it execs itself again without the secrets (see
:mod:`common.secrets`), so the model cannot read them in ``/proc/PID/environ``.
The Claude CLI gets no key either: it talks to a local proxy that adds it
(:mod:`agent.core.endpoint.model_proxy`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import os
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent.core.browser.launch import browser_servers, prepare_browser
from agent.core.endpoint.endpoint_meter import EndpointMeter
from agent.core.endpoint.model_probe import probe_endpoint
from agent.core.endpoint.model_proxy import DUMMY_KEY, ModelProxy, Upstream
from agent.core.log import AgentLog
from agent.core.policy import PolicyContext, audit
from agent.core.run import network_access, phases
from agent.core.run.orchestrator import ModelCheck, Outcome, Run, SpecRefusal
from agent.core.run.webhook import Webhook, agent_webhook, announcing_end
from agent.core.runner import run_to_end
from agent.core.session.entrances import own_entrances
from agent.core.session.hooks import PolicySetup
from agent.core.session.mcp_servers import agent_servers
from agent.core.session.research import RESEARCH_VARIABLES, ResearchConfig
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
from agent.model.launcher import LocalModel
from agent.model.playbook import DEMO_PLAYBOOK, IGNORES_FEEDBACK, ONLY_THE_DEMO, load_playbook
from agent.sandbox import layout as sandbox_layout
from agent.sandbox.protected import ProtectedPlaces
from agent.tracker.base import IssueTracker
from agent.tracker.factory import make_tracker
from agent.tracker.redacting import RedactingTracker
from common import decision_mac, help_text, paths, web_link
from common.atomic import cleanup_orphans, read_model_or_none, write_model
from common.credentials import (
    CREDENTIAL_VARIABLES,
    MODEL,
    check_credentials,
    credentials_from,
    without_credentials,
)
from common.errors import HarnessError, SecretsError
from common.paths import AGENT_NAME_VARIABLE, WorkspaceFiles
from common.project_env import ProjectEnv, without_harness
from common.project_env import detect as detect_project_env
from common.project_env import pinned as pinned_project_env
from common.schemas.agent_state import AgentState, Phase
from common.schemas.exit_status import AgentExit
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from common.schemas.workspace import WorkspaceInfo
from common.secrets import (
    HIDDEN_VARIABLES,
    add_secrets_fd_option,
    collect_secrets,
    reexec_without_secrets,
)
from common.telemetry import take_telemetry, telemetry_in, without_telemetry
from common.workspace import special_files
from common.workspace.setup import load_info
from common.workspace.stop_note import stop_reason

EXIT_CODES: dict[Outcome, int] = {"done": 0, "failed": 1, "stopped": 3}
DAEMON_VARIABLES = ("HARNESS_HOME", "HARNESS_ENV_CACHE")
"""Where the daemon's socket and files are: the agent needs neither, its sessions must not."""


@dataclass(frozen=True)
class ModelAccess:
    """How the CLI reaches its model, and how project_verification probes that."""

    env: dict[str, str]
    """Variables for the CLI's environment: a local base URL and a worthless key."""
    model: str | None
    """The model name for the sessions (``None``: the CLI's default)."""
    check: ModelCheck | None
    """The endpoint probe; ``None`` for the embedded model."""
    spec_refusal: SpecRefusal | None
    """Why the model cannot work on a spec; ``None``: a real model takes any spec."""
    meter: EndpointMeter
    """Opens the endpoint only while a session runs and charges every answer to it."""
    proxy: ModelProxy
    """The proxy the sessions reach the model through: it serves each session's own
    entrance when sessions run at once (issues in parallel)."""


def embedded_name(playbook: Path | None) -> str:
    """How the log names the embedded model: by the playbook it plays (the CLI would
    call it by its default Claude model's name, ``claude-opus-…``)."""
    demos = DEMO_PLAYBOOK.parent
    if playbook is None or playbook == DEMO_PLAYBOOK:
        played = "the demo playbook"
    elif playbook.is_relative_to(demos):
        played = f"the {playbook.parent.name} demo playbook"
    else:
        played = f"playbook {playbook.parent.name}/{playbook.name}"
    return f"embedded model playing {played}"


def playbook_refusal(playbook: Path) -> SpecRefusal:
    """The embedded model works only on the specs its playbook plays (the demo's: the demo).

    Decided here, where the model is chosen, so the core never knows the embedded model;
    the playbook is read when the spec is judged, as the model server reads it.
    """

    def refusal(spec_text: str) -> str | None:
        return None if load_playbook(playbook).plays(spec_text) else ONLY_THE_DEMO

    return refusal


def endpoint_meter(spec: AgentSpec, log: AgentLog, files: WorkspaceFiles | None) -> EndpointMeter:
    """The model endpoint's ledger: refusals logged, and counted in the workspace's audit."""

    def count(detail: str) -> None:
        if files is not None:
            audit.record_endpoint_refusal(files, detail)

    return EndpointMeter(priced=not spec.uses_local_model, log=log, on_refusal=count)


def metered_probe(check: ModelCheck, meter: EndpointMeter, log: AgentLog) -> ModelCheck:
    """The endpoint probe with the endpoint open for it (no session runs at that moment).

    Its one request (``max_tokens: 1``) is the harness's own: logged, not a session's spend.
    """

    async def probe() -> list[str]:
        with meter.window("endpoint probe") as spent:
            warnings = await check()
        meter.take_last(spent.label)
        log(f"endpoint probe: the model endpoint forwarded {spent.line()}")
        return warnings

    return probe


@contextlib.asynccontextmanager
async def model_environment(
    spec: AgentSpec,
    log: AgentLog,
    credentials: Mapping[str, str] | None = None,
    files: WorkspaceFiles | None = None,
) -> AsyncIterator[ModelAccess]:
    """Start what the CLI talks to: the embedded model, or the proxy to the real endpoint.

    ``credentials`` (:mod:`common.credentials`) are the starting client's; the
    proxy holds the secret among them, the CLI only the proxy's address. Either way
    the proxy forwards only the Messages API, only during a session, and charges it
    (refusals are counted in ``files``' audit).

    Raises:
        CredentialsError: a Claude model and no key, token or base URL.
    """
    credentials = credentials or {}
    meter = endpoint_meter(spec, log, files)
    if spec.uses_local_model:
        playbook = spec.playbook or DEMO_PLAYBOOK
        # Through the proxy too: it records every exchange in the trace.
        latency = spec.model_latency_s
        async with LocalModel(playbook, latency_s=latency) as model_url:
            local_proxy = ModelProxy(Upstream(model_url, "none"), log, meter)
            async with local_proxy as base_url:
                waits = f", {latency:g} s before each answer" if latency else ""
                log(f"embedded model serving {playbook.name} at {model_url}{waits}")
                yield ModelAccess(
                    env={
                        "ANTHROPIC_BASE_URL": base_url,
                        "ANTHROPIC_API_KEY": "local-playbook",
                        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                    },
                    model=None,
                    check=None,
                    spec_refusal=playbook_refusal(playbook),
                    meter=meter,
                    proxy=local_proxy,
                )
        return
    check_credentials(spec, credentials)
    upstream = Upstream.from_credentials(credentials)
    model = spec.model or credentials.get(MODEL)
    proxy = ModelProxy(upstream, log, meter)
    async with proxy as proxy_url:
        log(f"model proxy at {proxy_url} for {upstream.base_url} ({upstream.auth})")
        yield ModelAccess(
            env={
                "ANTHROPIC_BASE_URL": proxy_url,
                "ANTHROPIC_API_KEY": DUMMY_KEY,
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            },
            model=model,
            check=metered_probe(
                functools.partial(probe_endpoint, proxy_url, upstream, model), meter, log
            ),
            spec_refusal=None,
            meter=meter,
            proxy=proxy,
        )


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
    state = read_model_or_none(files.state, AgentState) or AgentState()
    if resume and state.phase is Phase.FAILED:
        state = phases.resume_after_failure(state, "resumed by `harness resume`")
        write_model(files.state, state)
        log(f"resuming the failed run in {state.phase.value}")
    log(f"agent for {info.spec.spec_file.name} in {info.spec.project_dir}, phase {state.phase}")
    for line in await asyncio.to_thread(special_files.defuse, info.spec.project_dir):
        log(line)  # before any git: a FIFO named .gitignore would hold every git call
    bwrap = check_sandbox(info.spec)  # first: no unsandboxed session if it cannot run
    places = places or ProtectedPlaces.of_this_process()
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
    hidden = [value for name, value in secrets.items() if name in HIDDEN_VARIABLES and value]
    secrecy = Secrecy(files, [*hidden, *(research.secrets() if research else [])])
    log.redact_with(secrecy.text)
    tracker = RedactingTracker(
        make_tracker(info, files, without_credentials(secrets), os.environ, log=log), secrecy.text
    )
    credentials = credentials_from(secrets)
    project_env, changed = pinned_project_env(
        detect_project_env(info.spec.project_dir, os.environ),
        state.project_env_kind,
        state.project_env_variables,
        state.test_command,
        state.project_env_root,
    )
    log(changed or f"project environment: {project_env.kind}")
    secret_values = [value for value in secrets.values() if value]
    secret_values += research.secrets() if research else []  # the trace redacts it too
    agent_name = os.environ.get(AGENT_NAME_VARIABLE) or files.root.name
    webhook = agent_webhook(
        info.spec.notify,
        state.notify,
        os.environ,
        log,
        web_link_file,
        agent=agent_name,
    )
    with (
        tracing(trace_path(files), secret_values),
        spans.exporting(telemetry or {}, agent_name, log),
    ):
        async with announcing_end(webhook, files) as ended:
            outcome = await _run(
                files,
                info,
                state,
                tracker,
                project_env,
                log,
                credentials,
                key,
                secrecy,
                bwrap,
                places,
                worktrees or paths.worktrees_dir(files.root),
                webhook,
                research,
            )
            ended.outcome = outcome
        spans.run_ended(outcome[0], _spend(files))
        return outcome


async def _run(
    files: WorkspaceFiles,
    info: WorkspaceInfo,
    state: AgentState,
    tracker: IssueTracker,
    project_env: ProjectEnv,
    log: AgentLog,
    credentials: dict[str, str],
    key: bytes,
    secrecy: Secrecy,
    bwrap: Path | None,
    places: ProtectedPlaces,
    worktrees: Path,
    webhook: Webhook | None,
    research: ResearchConfig | None = None,
) -> tuple[Outcome, str]:
    async with (
        model_environment(info.spec, log, credentials, files) as access,
        session_launch(
            info.spec,
            bwrap,
            access.env,
            log,
            state.sandbox_layout,
            places,
            on_host_refusal=functools.partial(audit.record_host_refusal, files),
            baseline_kb=state.disk_baseline.kb if state.disk_baseline else None,
        ) as launch,
    ):
        if launch.sandbox is not None:
            launch.sandbox.slot_read_only = project_env.folders_in(info.spec.project_dir)
        browser = await asyncio.to_thread(prepare_browser, info.spec, launch.sandbox, log)
        # The CLI and the model's Bash see the project's environment (PATH, VIRTUAL_ENV).
        config = SessionConfig(
            project_dir=info.spec.project_dir,
            model=access.model,
            env={**project_env.variables, **launch.env},
            local_model=info.spec.uses_local_model,
            model_name=embedded_name(info.spec.playbook) if info.spec.uses_local_model else None,
            meter=access.meter,
            cli_path=launch.cli_path,
            sandboxed=launch.sandboxed,
            limits=session_limits(launch, state),
            # Issues in parallel: each session reaches the model by an entrance of its own,
            # in a sandbox bound to its work tree (a slot's worktree).
            entrance=(
                own_entrances(access.proxy, launch.sandbox)
                if info.spec.parallel > 1 and launch.sandbox is not None
                else None
            ),
            max_turns=info.spec.budgets.turns_per_session,
            research=research,
            # The browser (built in), the spec's, and the repository's as approved at
            # project_verification.
            browser=browser,
            mcp_servers=agent_servers(info.spec, state, browser_servers(browser)),
            policy=PolicySetup(
                PolicyContext.for_project(
                    info.spec.project_dir,
                    info.spec.policy,
                    info.spec.test_command or project_env.test_command,
                    sandboxed=bwrap is not None,  # check_sandbox probed it: it runs
                ),
                files,
            ),
        )
        run = Run.create(
            files=files,
            info=info,
            state=state,
            tracker=tracker,
            sessions=config,
            log=log,
            project_env=project_env,
            model_check=access.check,
            spec_refusal=access.spec_refusal,
            decision_key=key,
            secrecy=secrecy,
            command_wrap=launch.wrap,
            layout_keeper=launch.keeper,
            worktrees=worktrees,
            webhook=webhook,
            host_access=launch.host_access,
            # Each gate sees the work tree as an overlay where the kernel allows one.
            gate_overlays=launch.sandbox is not None and launch.sandbox.overlays,
        )
        if info.spec.uses_local_model:  # a rejection's feedback changes none of its answers
            run.desk.feedback_note = IGNORES_FEEDBACK
        with run.store.editing() as recorded:  # what holds here: for the person to see
            recorded.machine_limits = launch.machine
        # The spec's hosts (and the repository's as approved), through the filtering proxy.
        network_access.apply(run.sessions, info.spec, state, run.host_access)
        return await run_to_end(run)


def session_limits(launch: SessionLaunch, state: AgentState) -> SessionLimits | None:
    """Where each session's launcher reports a limit, and since when the run's files
    count (``None``: no launcher in front of the sessions)."""
    if launch.limit_reports is None:
        return None
    baseline = state.disk_baseline
    since = int(baseline.at.timestamp() * 1e9) if baseline is not None else None
    return SessionLimits(launch.limit_reports, since)


def session_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """What the agent keeps of its environment, for everything it starts.

    No Claude secrets (the proxy holds them), no research service or its key (the
    harness's research tools call it, not the model's commands), no ``HARNESS_HOME`` (the model must
    not find the daemon's socket), no ``OTEL_*`` (the agent's exporter alone uses them; a
    collector's token may be among them), and not the harness's own interpreter: the CLI,
    the model's Bash and the gates run in the project's environment.
    """
    hidden = {*CREDENTIAL_VARIABLES, *DAEMON_VARIABLES, *RESEARCH_VARIABLES}
    kept = {k: v for k, v in environ.items() if k not in hidden}
    return without_harness(without_telemetry(kept))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agent.cli", description=help_text.plain(__doc__)
    )
    parser.add_argument("--workspace", required=True, type=Path, help="the agent's workspace")
    parser.add_argument(
        "--resume", action="store_true", help="give a failed run a fresh chance where it failed"
    )
    add_secrets_fd_option(parser)
    args = parser.parse_args(argv)
    files = WorkspaceFiles(args.workspace.absolute())
    log = AgentLog()
    try:
        secrets = collect_secrets(args.secrets_fds, os.environ)
        # OTEL_*: the starting client's came by the pipe; started by hand, this environment's.
        telemetry = {**telemetry_in(os.environ), **take_telemetry(secrets)}
        # The research services (enrichment's web_search, library_docs): the agent's alone;
        # the Context7 key came by the pipe like the GitLab token (or out of os.environ).
        research = ResearchConfig.from_environ({**os.environ, **secrets})
        # Read once, held in memory: the sessions this agent starts never need HARNESS_HOME.
        key = decision_mac.load_key()
        # Taken before HARNESS_HOME leaves the environment: no sandbox may ever show it.
        places = ProtectedPlaces.of_this_process(os.environ)
        # The issue worktrees' folder is under HARNESS_HOME too: named now, for the same reason.
        worktrees = paths.worktrees_dir(files.root)
        # And where `harness web` records its link, for the webhook's messages.
        web_link_file = web_link.link_file()
    except (SecretsError, decision_mac.DecisionKeyError) as e:
        return _ended(files, log, "failed", str(e))
    # Started by hand: the Claude settings of this environment count, then leave it.
    secrets = {**credentials_from(os.environ), **secrets}
    cleaned = session_environment(os.environ)
    os.environ.clear()
    os.environ.update(cleaned)
    cleanup_orphans(files.root)
    outcome, reason = asyncio.run(
        _supervised(
            files,
            log,
            secrets,
            resume=args.resume,
            decision_key=key,
            places=places,
            worktrees=worktrees,
            web_link_file=web_link_file,
            research=research,
            telemetry=telemetry,
        )
    )
    return _ended(files, log, outcome, reason)


def _ended(files: WorkspaceFiles, log: AgentLog, outcome: Outcome, reason: str) -> int:
    """Log the end, write the exit status for the daemon and return the exit code."""
    code = EXIT_CODES[outcome]
    log(f"agent ended: {outcome}" + (f" — {reason}" if reason and not _told(files, reason) else ""))
    if files.root.is_dir():
        write_model(
            files.exit_status,
            AgentExit(pid=os.getpid(), outcome=outcome, exit_code=code, reason=reason),
        )
    return code


def _spend(files: WorkspaceFiles) -> Spend:
    """The run's spend as the state last recorded it (for the run's span)."""
    try:
        state = read_model_or_none(files.state, AgentState)
    except HarnessError:
        return Spend()
    return state.spend if state is not None else Spend()


def _told(files: WorkspaceFiles, reason: str) -> bool:
    """The run's ``phase → failed`` line already told ``reason``: not told again."""
    try:
        state = read_model_or_none(files.state, AgentState)
    except HarnessError:
        return False
    return state is not None and state.phase is Phase.FAILED and state.failure == reason


async def _supervised(
    files: WorkspaceFiles,
    log: AgentLog,
    secrets: dict[str, str],
    *,
    resume: bool,
    decision_key: bytes | None = None,
    places: ProtectedPlaces | None = None,
    worktrees: Path | None = None,
    web_link_file: Path | None = None,
    research: ResearchConfig | None = None,
    telemetry: Mapping[str, str] | None = None,
) -> tuple[Outcome, str]:
    """Run the agent; SIGTERM or SIGINT end it as "stopped" (the state stays resumable)."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    try:
        return await run_agent(
            files,
            log,
            secrets,
            resume=resume,
            decision_key=decision_key,
            places=places,
            worktrees=worktrees,
            web_link_file=web_link_file,
            research=research,
            telemetry=telemetry,
        )
    except asyncio.CancelledError:
        # Who asked, when the daemon said so (harness stop, the TUI): "stopped by cli:alice".
        return "stopped", stop_reason(files.root, os.getpid())
    except HarnessError as e:
        return "failed", str(e)


if __name__ == "__main__":
    reexec_without_secrets()  # first: /proc/PID/environ must not keep the token
    sys.exit(main())

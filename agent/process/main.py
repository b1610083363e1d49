"""``python -m agent.process --workspace DIR``: one agent, from its workspace to DONE.

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
import os
import signal
from collections.abc import Mapping
from pathlib import Path

from agent.core.log import AgentLog
from agent.core.run.orchestrator import Outcome
from agent.core.session.research import RESEARCH_VARIABLES, ResearchConfig
from agent.process.start import run_agent
from agent.sandbox.protected import ProtectedPlaces
from common import decision_mac, help_text, paths, web_link
from common.atomic import cleanup_orphans, read_model_or_none, write_model
from common.credentials import CREDENTIAL_VARIABLES, credentials_from
from common.errors import HarnessError, SecretsError
from common.paths import WorkspaceFiles
from common.project_env import without_harness
from common.schemas.agent_state import AgentState, Phase
from common.schemas.exit_status import AgentExit
from common.secrets import add_secrets_fd_option, collect_secrets, reexec_without_secrets
from common.telemetry import take_telemetry, telemetry_in, without_telemetry
from common.workspace.stop_note import stop_reason

EXIT_CODES: dict[Outcome, int] = {"done": 0, "failed": 1, "stopped": 3}
DAEMON_VARIABLES = ("HARNESS_HOME", "HARNESS_ENV_CACHE")
"""Where the daemon's socket and files are: the agent needs neither, its sessions must not."""


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
        prog="python -m agent.process", description=help_text.plain(__doc__)
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
        return record_end(files, log, "failed", str(e))
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
    return record_end(files, log, outcome, reason)


def record_end(files: WorkspaceFiles, log: AgentLog, outcome: Outcome, reason: str) -> int:
    """Log the end, write the exit status for the daemon and return the exit code."""
    code = EXIT_CODES[outcome]
    log(f"agent ended: {outcome}" + (f" — {reason}" if reason and not _told(files, reason) else ""))
    if files.root.is_dir():
        write_model(
            files.exit_status,
            AgentExit(pid=os.getpid(), outcome=outcome, exit_code=code, reason=reason),
        )
    return code


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


def run_as_program() -> None:
    """What ``python -m`` runs: the secrets out of the environment first, then the agent."""
    reexec_without_secrets()  # first: /proc/PID/environ must not keep the token
    raise SystemExit(main())

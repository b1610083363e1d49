"""``python -m agent.daemon [--foreground]``: run the daemon in this process.

It does not fork: ``agent.daemon.lifecycle.start_daemon`` starts it detached.
It logs to ``HARNESS_HOME/daemon.log`` (with ``--foreground`` also to stderr).
With ``HARNESS_METRICS_ADDR`` set it also serves the agents' metrics over HTTP
(:mod:`agent.daemon.metrics_server`).
A daemon that cannot start prints one line on stderr and exits with status 1.

Secrets (the GitLab token) come through a pipe (``--secrets-fd N``, as
``start_daemon`` passes them) and stay in memory: a daemon started with one in its
environment first execs itself again without it, so that ``/proc/PID/environ``
never shows it to the commands the model runs (see :mod:`common.secrets`).
Claude credentials it finds there are dropped: each agent gets those of the
client that started it (see :mod:`common.credentials`).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from agent.daemon.home import ensure_home, private_log
from agent.daemon.metrics_server import MetricsAddress, MetricsServer, metrics_address
from agent.daemon.server import DaemonServer
from agent.daemon.supervisor import AgentCommand, Supervisor, default_agent_command
from common.errors import HarnessError
from common.paths import daemon_log_path, harness_home
from common.secrets import add_secrets_fd_option, collect_secrets, reexec_without_secrets

WORKSPACE_PLACEHOLDER = "{workspace}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the daemon until it is asked to shut down; the exit status."""
    args = _parser().parse_args(argv)
    home = harness_home()
    try:
        secrets = collect_secrets(args.secrets_fds, os.environ)
        ensure_home(home)
        _configure_logging(home, echo=args.foreground)
        metrics = metrics_address(os.environ)  # a bad address: one line before anything runs
        supervisor = Supervisor(home, _agent_command(args.agent_command), secrets=secrets)
        asyncio.run(_serve(DaemonServer(supervisor, home), supervisor, metrics))
    except HarnessError as e:
        return _fail(str(e))
    except OSError as e:
        return _fail(f"cannot run the daemon: {e}")
    return 0


def _fail(message: str) -> int:
    """Log and print one line; the exit status of a daemon that could not run."""
    logging.getLogger(__name__).error("%s", message)
    print(message, file=sys.stderr)
    return 1


async def _serve(
    server: DaemonServer, supervisor: Supervisor, metrics: MetricsAddress | None = None
) -> None:
    await server.start()
    endpoint = MetricsServer(supervisor.agents, lambda: server.refused_connections)
    try:
        if metrics is not None:
            await endpoint.start(metrics)
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, server.request_shutdown)
        await server.wait_closed()
    except BaseException:
        await server.close()
        raise
    finally:
        await endpoint.close()


def _agent_command(template: str | None) -> AgentCommand:
    """The default agent, or ``template`` with ``{workspace}`` filled in per agent."""
    if template is None:
        return default_agent_command
    parts = shlex.split(template)

    def command(workspace: Path) -> list[str]:
        return [part.replace(WORKSPACE_PLACEHOLDER, str(workspace)) for part in parts]

    return command


def _configure_logging(home: Path, *, echo: bool) -> None:
    handlers: list[logging.Handler] = [logging.FileHandler(private_log(daemon_log_path(home)))]
    if echo:
        handlers.append(logging.StreamHandler(sys.stderr))
    logging.basicConfig(
        level=logging.INFO,
        format="%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agent.daemon", description="Run the coding-harness daemon."
    )
    parser.add_argument(
        "--foreground",
        action="store_true",
        help="also log to stderr (the daemon always runs in this process)",
    )
    parser.add_argument(
        "--agent-command",
        metavar="COMMAND",
        help=(
            "the command that runs one agent, with {workspace} where its workspace goes "
            "(default: python -m agent.process --workspace {workspace})"
        ),
    )
    add_secrets_fd_option(parser)
    return parser


if __name__ == "__main__":
    reexec_without_secrets()  # before anything else: /proc/PID/environ must not keep a token
    sys.exit(main())

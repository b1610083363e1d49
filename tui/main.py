"""``python -m tui.main [--specs JSON] [--demo] [--auto-accept] [--fresh] [--no-daemon-start]``.

Everything that can fail before the UI opens fails here, as one line on stderr
and exit status 1: a bad ``--specs``, a spec pointing at nothing, a daemon that
will not start or refuses an agent. Then the TUI opens on the running view.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence

from agent.control.specs import parse_specs
from agent.daemon import lifecycle
from agent.daemon.client import DaemonClient
from common.credentials import check_credentials, credentials_from
from common.errors import DaemonError, HarnessError
from common.paths import daemon_log_path
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.spec import AgentSpec
from common.secrets import hide_secrets_from_proc
from common.telemetry import telemetry_from
from common.workspace.setup import validate_spec
from tui.app import HarnessApp
from tui.screens.wizard import WizardDefaults
from tui.services.link import DaemonLink
from tui.services.settings import load_memory, load_settings


def main(argv: Sequence[str] | None = None) -> int:
    """Start the agents asked for, then run the TUI until the person quits."""
    try:
        if argv is None:  # a real start: keep a GitLab token out of /proc/PID/environ
            argv = hide_secrets_from_proc(sys.argv)[1:]
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings()
        specs = collect_specs(args.specs, demo=args.demo, auto_accept=args.auto_accept)
        started = asyncio.run(
            prepare(specs, start_daemon=not args.no_daemon_start, fresh=args.fresh)
        )
    except HarnessError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    app = HarnessApp(
        DaemonLink(autostart=not args.no_daemon_start),
        WizardDefaults.from_environment(last_repository=load_memory().last_repository),
        settings=settings,
        wizard_when_empty=not specs,
        select=started[0] if started else None,
    )
    app.run()
    return 0


def collect_specs(text: str | None, *, demo: bool, auto_accept: bool) -> list[AgentSpec]:
    """The specs of ``--specs`` (and the demo's), each checked before any agent starts.

    Raises:
        SpecError: the JSON is malformed, or a spec points at something missing.
        CredentialsError: a spec names a Claude model and this environment has no credentials.
    """
    specs = parse_specs(text) if text is not None else []
    if demo:
        # Imported here: the demo's module reaches python-gitlab (its GitLab mode), which
        # would cost every start of the TUI a quarter of a second before its first paint.
        from agent.control.demo import prepare_demo

        specs.append(prepare_demo(None, auto_accept))
    if auto_accept:
        specs = [spec.model_copy(update={"auto_accept": AutoAcceptRules.on()}) for spec in specs]
    credentials = credentials_from(os.environ)
    for spec in specs:
        validate_spec(spec)
        check_credentials(spec, credentials)
    return specs


async def prepare(specs: list[AgentSpec], *, start_daemon: bool, fresh: bool = False) -> list[str]:
    """Make sure the daemon runs, then start ``specs`` through it; the started agents' names.

    ``fresh``: each in a new workspace, as ``harness run --fresh`` does, so a spec that
    already ran runs again (``./start.sh --fresh``).

    Raises:
        DaemonError: the daemon is not running (and may not be started), will not
            start, or refused a spec.
    """
    if lifecycle.daemon_running() is None:
        if not start_daemon:
            raise DaemonError(
                "the daemon is not running; start it with `harness daemon start`, "
                "then run `python -m tui.main` again"
            )
        try:
            await lifecycle.start_daemon()
        except DaemonError as e:
            raise DaemonError(f"cannot start the daemon: {e} (log: {daemon_log_path()})") from e
    names: list[str] = []
    async with DaemonClient.connect() as client:
        for spec in specs:
            try:
                info = await client.start(
                    spec,
                    credentials_from(os.environ),
                    fresh=fresh,
                    telemetry=telemetry_from(os.environ),
                )
            except DaemonError as e:
                already = f"; already started: {', '.join(names)}" if names else ""
                raise DaemonError(f"{spec.spec_file.name}: {e}{already}") from e
            names.append(info.name)
    return names


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tui.main", description="The coding-harness terminal UI."
    )
    parser.add_argument("--specs", help="JSON array of spec objects to start before the UI opens")
    parser.add_argument("--demo", action="store_true", help="also start the demo project")
    parser.add_argument(
        "--auto-accept", action="store_true", help="start the given agents in auto-accept mode"
    )
    parser.add_argument(
        "--fresh",
        action="store_true",
        help="start the given specs in new workspaces even if they ran before",
    )
    parser.add_argument(
        "--no-daemon-start",
        action="store_true",
        help="do not start the daemon; say what to do when it is not running",
    )
    return parser


if __name__ == "__main__":
    sys.exit(main())

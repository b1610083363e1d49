"""``python -m tui.main [--specs JSON] [--demo] [--auto-accept] [--fresh] [--no-daemon-start]``.

Everything that can fail before the UI opens fails here, as one line on stderr
and exit status 1: a bad ``--specs``, a spec pointing at nothing, a daemon that
will not start or refuses an agent of ``--specs``, a broken settings file, no
daemon with ``--no-daemon-start``. Then the TUI opens on the running view.

Only what there is to do is done first. With no spec to start, nothing but textual
and the TUI's own light modules is imported before the first screen paints: the
running view says "connecting to the daemon…" until the daemon's agents arrive,
while the protocol's schemas load and the link connects (and starts the daemon if
it is not running; if it will not start, the view says why), instead of a blank
terminal for as long as that takes.

When the TUI closes, the agents it leaves running and the checkpoints still waiting are
said on the shell (:mod:`tui.services.farewell`), with how to come back.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from collections.abc import Sequence

from common.errors import DaemonError, HarnessError
from common.secrets import hide_secrets_from_proc
from common.untrusted_text import error_line
from tui import labels
from tui.app import HarnessApp
from tui.services.farewell import farewell
from tui.services.link import NOT_RUNNING, DaemonLink, daemon_answers
from tui.services.settings import load_settings_if_any


def main(argv: Sequence[str] | None = None) -> int:
    """Start the agents asked for, then run the TUI until the person quits."""
    try:
        if argv is None:  # a real start: keep a GitLab token out of /proc/PID/environ
            argv = hide_secrets_from_proc(sys.argv)[1:]
    except HarnessError as e:
        print(error_line(e), file=sys.stderr)
        return 1
    args = build_parser().parse_args(argv)
    try:
        settings = load_settings_if_any()
        started = start_first(args)
    except HarnessError as e:
        print(error_line(e), file=sys.stderr)
        return 1
    # What is loaded by now (some 50,000 objects: modules, classes, their tables) lives
    # as long as the process: the collector need not walk it again. Otherwise the first
    # full collection falls before the first paint and delays it by 15-25 ms.
    gc.freeze()
    app = HarnessApp(
        DaemonLink(autostart=not args.no_daemon_start),
        settings=settings,
        wizard_when_empty=started is None,
        select=started[0] if started else None,
    )
    app.run()
    note = farewell(app.running.agents.values(), app.running.desk.book.waiting(), labels.now())
    if note:  # q closed only the TUI: say what runs on and what waits
        print(note)
    return 0


def start_first(args: argparse.Namespace) -> list[str] | None:
    """The specs given, started (the started agents' names); ``None`` when none was given.

    With nothing to start this imports nothing (see the module's docstring): the daemon,
    if it is not running, is started by the TUI's link once the first screen is painted.

    Raises:
        HarnessError: a spec is bad, or the daemon is not running and may not be
            started, will not start, or refused a spec.
    """
    if args.specs is None and not args.demo:
        if args.no_daemon_start and not daemon_answers():
            raise DaemonError(NOT_RUNNING)
        return None  # the link connects after the first paint, and starts the daemon if need be
    from tui.services.startup import collect_specs, prepare

    specs = collect_specs(args.specs, demo=args.demo, auto_accept=args.auto_accept)
    names = asyncio.run(prepare(specs, start_daemon=not args.no_daemon_start, fresh=args.fresh))
    return names if specs else None


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

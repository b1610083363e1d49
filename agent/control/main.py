"""harness: run specs, watch agents, answer checkpoints, manage the daemon.

Every error is one line on stderr and a non-zero exit status.

Start-up is kept short: this module and :mod:`agent.control.parser` import the
standard library and a few small modules of ``common``; the command's own module is
imported only once the command is known (:mod:`agent.control.parser` names it).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from agent.control.parser import build_parser
from agent.control.printable_output import printable_output
from agent.daemon.procs import started_by
from common.env_file import env_file, load
from common.errors import HarnessError
from common.harness_code import CODE_ROOT, is_installed
from common.secrets import hide_secrets_from_proc
from common.untrusted_text import error_line

#: A command returns its exit status, or a coroutine for it when it awaits the daemon's
#: streams; a plain one (``harness approve``) never pays for starting an event loop.
Command = Callable[[argparse.Namespace], int | Coroutine[Any, Any, int]]

__all__ = ["build_parser", "load_command", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``harness`` console script."""
    # An answer without --checkpoint decides only what was waiting when the command began:
    # for a real start that is the process's start (its re-exec keeps it), at the latest
    # instant /proc's clock ticks allow (never a checkpoint on screen before it refused).
    started = (started_by(os.getpid()) if argv is None else None) or datetime.now(UTC)
    if argv is None:  # a real start: keep a GitLab token out of /proc/PID/environ
        try:
            argv = hide_secrets_from_proc(sys.argv)[1:]
        except HarnessError as e:
            print(error_line(e), file=sys.stderr)
            return 1
    args = build_parser().parse_args(argv)
    args.started = started
    if args.reads_env:  # after the re-exec: what .env holds never enters /proc/PID/environ
        read_env_file()
    with printable_output():  # what a command prints may quote the model: escaped
        try:
            return run_command(load_command(args.command), args)
        except HarnessError as e:
            print(error_line(e), file=sys.stderr)
            return 1
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            # The reader went away (``harness logs | head``): stop quietly, as cat does.
            _silence_stdout()
            return 141


def read_env_file() -> None:
    """Fill this process's environment from ``.env`` as ``start.sh`` does (never over a
    variable already set); each line that is not ``KEY=VALUE`` is one warning."""
    checkout = None if is_installed() else CODE_ROOT
    path = env_file(os.environ, checkout)
    for warning in load(path, os.environ) if path is not None else []:
        print(warning, file=sys.stderr)


def load_command(target: str) -> Command:
    """The function ``module:function`` names, its module imported now (and only now)."""
    module, _, name = target.partition(":")
    command: Command = getattr(importlib.import_module(module), name)
    return command


def run_command(command: Command, args: argparse.Namespace) -> int:
    """Run ``command``: a plain one returns its status, a coroutine runs in an event loop."""
    outcome = command(args)
    if isinstance(outcome, int):
        return outcome
    import asyncio  # only now: about 20 ms that a plain command does not need

    return asyncio.run(outcome)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())

"""``harness web``: hand over to the TUI's web server (``python -m tui.web``).

Why a new program and not an import: the server lives with the TUI (textual-serve,
aiohttp) and the CLI stands below the TUI, so the CLI starts it as a program, in this
interpreter, with the same arguments. ``exec`` keeps the process: Ctrl+C and the exit
status are the server's own. The secrets this process holds (a GitLab token, the Claude
credentials the browser tabs' TUIs start agents with) go through a pipe, never into the
server's exec environment.
"""

from __future__ import annotations

import argparse

from common.harness_code import module_command
from common.secrets import exec_with_secrets


def web_argv(args: argparse.Namespace) -> list[str]:
    """The server's command line for ``harness web``'s arguments."""
    argv = module_command("tui.web", "--host", args.host, "--port", str(args.port))
    if args.public_url is not None:
        argv += ["--public-url", args.public_url]
    return argv


async def cmd_web(args: argparse.Namespace) -> int:
    exec_with_secrets(web_argv(args))

"""The regression replay: earlier issues' browser checks, run again before the merge request.

The harness starts the app with the spec's serve command and the browser server in one
sandbox of the test gates' layout (the model's code runs there, so it is sandboxed like
the gates; no model endpoint, no host network), speaks MCP to the server itself and
repeats each closed issue's recorded calls (:mod:`.record`). A call the server answers
with an error (the page is gone, the element the check clicked is missing) is a
regression finding, named like a failing test: it stops at regression_approval.
Whether the app still works is this replay's finding, never the model's word.

The app is served in the background of the server's shell, so nothing but the launcher
in front of it (:mod:`agent.sandbox.enter`) ends it: the wrap puts it there with the
spec's limits, sandboxed or not, and without a wrap the launcher alone stands there. When
the server ends, the launcher kills what is left (the app, whatever it daemonized), so
no served app outlives its replay (before, with ``"sandbox": false``, it kept running on
the host).
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult, TextContent

from agent.core.browser.server import BrowserSetup
from agent.core.gates.gates import CommandWrap
from agent.sandbox.limits import bare_argv
from common.schemas.browser_check import BrowserCall, BrowserCheck

REPLAY_TIMEOUT_S = 120.0
"""The whole replay: a few page loads and clicks per issue."""
SERVE_WAIT_S = 10.0
"""How long a first navigation waits for the app to listen (it was just started)."""
INSIDE_OUTPUT = Path("/tmp/harness-replay")
"""The server's output folder inside the replay's sandbox (its own private ``/tmp``)."""
_REFUSED = "ERR_CONNECTION_REFUSED"


def replay_command(setup: BrowserSetup) -> list[str]:
    """The shell line that serves the app in the background and runs the server (pure)."""
    server = shlex.join(setup.argv(INSIDE_OUTPUT))
    return ["/bin/sh", "-c", f"({setup.web.serve}) >/dev/null 2>&1 </dev/null &\nexec {server}"]


def finding(issue: int, call: BrowserCall, why: str) -> str:
    """One regression line, as the harness words it (the model's input is quoted as JSON)."""
    shown = json.dumps(call.input, ensure_ascii=True)[:120]
    return f"(browser check of issue #{issue}: {call.tool} {shown} fails: {why[:200]})"


async def replay(
    checks: list[BrowserCheck],
    setup: BrowserSetup,
    project: Path,
    env: Mapping[str, str],
    wrap: CommandWrap | None,
    overlay: Path | None = None,
) -> list[str]:
    """Every recorded call again, issue by issue; the regression findings (empty: all ran).

    A check stops at its first failing call (later calls of it act on a page that is
    not the one they were made on). ``overlay``: the wrap shows the project as an overlay
    whose writes land in that folder (a gate cannot change the tree it judges)."""
    if not any(check.calls for check in checks):
        return []
    argv = replay_command(setup)
    if wrap is None:
        command = [*bare_argv("replay"), *argv]
    else:
        command = wrap(argv, project, overlay=overlay) if overlay else wrap(argv, project)
    params = StdioServerParameters(
        command=command[0], args=command[1:], cwd=str(project), env=dict(env)
    )
    findings: list[str] = []
    try:
        async with asyncio.timeout(REPLAY_TIMEOUT_S):
            with Path(os.devnull).open("w") as quiet:  # noqa: ASYNC230 (no disk IO)
                async with (
                    stdio_client(params, errlog=quiet) as (read, write),
                    ClientSession(read, write) as session,
                ):
                    await session.initialize()
                    for check in checks:
                        for call in check.calls:
                            why = await _call(session, call)
                            if why is not None:
                                findings.append(finding(check.issue, call, why))
                                break
    except TimeoutError:
        findings.append(f"(browser checks: the replay did not end within {REPLAY_TIMEOUT_S:.0f} s)")
    except Exception as e:  # the server would not start or broke off: no check could run
        findings.append(f"(browser checks: the replay could not run: {_first_line(str(e))})")
    return findings


async def _call(session: ClientSession, call: BrowserCall) -> str | None:
    """``None`` when the call succeeds, else the first line of its error. A first
    navigation retries while the app is not listening yet."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + SERVE_WAIT_S
    while True:
        result = await session.call_tool(call.tool, call.input)
        if not result.is_error:
            return None
        why = _error_text(result)
        if call.tool != "browser_navigate" or _REFUSED not in why or loop.time() > deadline:
            return why
        await asyncio.sleep(0.3)


def _error_text(result: CallToolResult) -> str:
    texts = [part.text for part in result.content if isinstance(part, TextContent)]
    lines = [line for text in texts for line in text.splitlines() if line.strip()]
    meaningful = [line for line in lines if not line.startswith("###")]
    return _first_line("\n".join(meaningful) or "an error without text")


def _first_line(text: str) -> str:
    return " ".join((text.strip().splitlines() or [""])[0].split())

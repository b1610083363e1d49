"""Giving an agent's coding sessions the browser, once, when its run starts.

The rule: a spec with a ``web`` section (the person's word that the project has a web
UI, how it is served and its loopback URL) and without ``skip_puppeteer: true``. A
project without one never starts a browser. Where the browser cannot be had (no
Chromium, no npm to install the server), the run goes on without it and says so once.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from agent.core.browser.install import BrowserUnavailable, ensure_installed
from agent.core.browser.server import BrowserSetup
from agent.sandbox.launcher import SessionSandbox
from common.errors import SandboxError
from common.schemas.mcp_server import McpServer
from common.schemas.spec import AgentSpec


def prepare_browser(
    spec: AgentSpec, sandbox: SessionSandbox | None, log: Callable[[str], None]
) -> BrowserSetup | None:
    """The browser of the agent's coding sessions, shown in its sandbox; ``None`` when
    the spec asks for none or it cannot be had here (logged). Blocking: the first run
    on a machine installs the server (run it off the event loop)."""
    if spec.web is None:
        return None
    if spec.skip_puppeteer:
        log("browser: off (skip_puppeteer is true)")
        return None
    try:
        install = ensure_installed()
    except BrowserUnavailable as e:
        log(f"browser: not offered to the sessions: {e}")
        return None
    if sandbox is None:
        output = Path(tempfile.mkdtemp(prefix="harness-browser-"))
    else:
        output = sandbox.browser_output()
    outputs = sandbox.browser_output_for if sandbox is not None else None
    setup = BrowserSetup(install, spec.web, output, outputs)
    if sandbox is not None:
        try:
            sandbox.show_browser(setup.read_only(), output)
        except SandboxError as e:
            log(f"browser: not offered to the sessions: {e}")
            return None
    log(
        f"browser: Playwright MCP {install.folder.name} with {install.chromium} (headless), "
        f"for coding sessions; the app at {spec.web.url}"
    )
    return setup


def browser_servers(setup: BrowserSetup | None) -> tuple[McpServer, ...]:
    """The built-in servers for :func:`agent.core.session.mcp_servers.agent_servers`."""
    return (setup.server(),) if setup is not None else ()

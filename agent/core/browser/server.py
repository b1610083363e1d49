"""The browser as a built-in MCP server of coding sessions, and what the model is told.

Chromium's own sandbox is off (``--no-sandbox``) only because the whole server runs
inside ours: bubblewrap has already dropped every capability and unshared the user
namespace Chromium's sandbox would need, so it cannot start there (measured with
Debian's Chromium in our bwrap layout: "Chromium sandboxing failed!", no page). The
browser sees what the session's sandbox sees: the sandbox's own loopback (what the
session serves itself), no host network, no host port.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.core.browser.install import BrowserInstall
from common.schemas.mcp_server import BROWSER_SERVER, McpServer
from common.schemas.web import WebSettings

SERVER = BROWSER_SERVER
"""The built-in server's name: its tools reach the model as ``mcp__browser__<tool>``."""

REPLAYED = frozenset(
    {
        "browser_navigate",
        "browser_navigate_back",
        "browser_snapshot",
        "browser_click",
        "browser_type",
        "browser_press_key",
        "browser_fill_form",
        "browser_select_option",
        "browser_wait_for",
    }
)
"""The calls the regression replay repeats (screenshots and the console are looked at,
not replayed)."""


def tool_name(tool: str) -> str:
    """``browser_navigate`` → ``mcp__browser__browser_navigate``."""
    return f"mcp__{SERVER}__{tool}"


@dataclass(frozen=True)
class BrowserSetup:
    """The browser one agent's coding sessions get."""

    install: BrowserInstall
    web: WebSettings
    output_dir: Path
    """Where the server saves screenshots and snapshots: writable inside the sandbox at
    its own path; the harness takes the screenshots out after each session."""
    outputs: Callable[[Path], Path] | None = None
    """Where that folder is outside for a session in a given work tree (a slot's is its
    own); ``None``: :attr:`output_dir` for every session."""

    def output_in(self, work_tree: Path) -> Path:
        """The output folder outside of a session in ``work_tree``."""
        return self.outputs(work_tree) if self.outputs is not None else self.output_dir

    def argv(self, output_dir: Path | None = None) -> list[str]:
        """The server's command line (run by the CLI, inside the sandbox); ``output_dir``
        in place of the sessions' (the regression replay keeps its files apart)."""
        return [
            str(self.install.node),
            str(self.install.entry),
            "--headless",
            "--executable-path",
            str(self.install.chromium),
            "--no-sandbox",
            "--isolated",
            "--output-dir",
            str(output_dir or self.output_dir),
            "--allowed-origins",
            self.web.origin,
            "--viewport-size",
            "1280x720",
        ]

    def server(self) -> McpServer:
        """The built-in ``browser`` entry, for coding sessions only, reaching no host."""
        return McpServer(name=SERVER, command=self.argv(), sessions=("coding",))

    def read_only(self) -> tuple[Path, ...]:
        """What the sandbox must show read-only beside the system folders."""
        return (self.install.folder,)

    def prompt_block(self) -> str:
        """What the coding prompt adds when the session has the browser (the harness's
        words; the serve command and URL are the person's, from the spec)."""
        return (
            "\n---- BROWSER CHECK (from the harness) ----\n"
            "This project has a web UI. After building each feature, check it in the real "
            "browser: serve the app in the background with its serve command "
            f"(`{self.web.serve}`), open {self.web.url} with "
            f"`{tool_name('browser_navigate')}`, read the page with "
            f"`{tool_name('browser_snapshot')}`, use the feature (click, type) and take a "
            f"screenshot with `{tool_name('browser_take_screenshot')}` (no file name: it is "
            "saved where the harness collects it for the person's review). The browser "
            "reaches only what this session serves on 127.0.0.1.\n"
        )

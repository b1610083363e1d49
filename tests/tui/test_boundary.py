"""Only ``tui/`` imports textual; the daemon, the agent and the TUI's services do not."""

from __future__ import annotations

import ast
import subprocess
import sys

from tests.tui.conftest import REPO_ROOT

NOT_TUI = ("common", "agent")


def test_no_module_outside_tui_imports_textual() -> None:
    offenders = []
    for package in NOT_TUI:
        for path in (REPO_ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                if any(name.split(".")[0] == "textual" for name in names):
                    offenders.append(str(path.relative_to(REPO_ROOT)))
    assert offenders == []


def test_importing_the_daemon_agent_and_tui_services_does_not_import_textual() -> None:
    code = (
        "import sys, agent.daemon.__main__, agent.process.main, agent.control.main, "
        "tui.services.link, tui.services.pending, tui.services.decide, "
        "tui.services.log_tail, tui.services.git_status, tui.services.diff_pager; "
        "sys.exit('textual' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=False)
    assert done.returncode == 0

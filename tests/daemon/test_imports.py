"""The daemon is agent code: it must not pull in the TUI toolkit."""

from __future__ import annotations

import subprocess
import sys

from .conftest import REPO_ROOT


def test_importing_the_daemon_does_not_import_textual() -> None:
    code = (
        "import sys, agent.daemon.server, agent.daemon.client, agent.daemon.lifecycle, "
        "agent.daemon.__main__; "
        "sys.exit('textual' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=False)
    assert done.returncode == 0

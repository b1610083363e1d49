"""Issue 26, finding 7: nothing a session or a replay serves outlives it, sandboxed or not.

The web demo through a daemon of the test's own and ``harness run --auto-accept --wait``,
once in the sandbox and once with ``"sandbox": false``. Its coding session serves the app
in the background of the CLI's shell; the replay before the merge request serves it again
with the spec's serve command (marked here with a nonce in its environment) in the
background of the browser server. Before, without the sandbox, nothing ended either: the
model's app kept running on the host after the run. Now the run ends DONE, its replay
passed, and no process of it is left: none working in the project, none with the nonce.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from agent.frontend.demo import WEB, prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from tests.e2e.agents import harness
from tests.e2e.test_web_demo import browser_installed

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("browser_installed", "daemon_home")]
__all__ = ["browser_installed"]  # the fixture, used by name

NONCE = "h26-app-4b7e"


def left_in(project: Path, marker: bytes) -> list[str]:
    """Processes working in ``project`` or carrying ``marker`` in their environment."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cwd = (entry / "cwd").resolve()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue  # not a process, or gone
        if cwd == project or project in cwd.parents or marker in environ:
            found.append(f"{entry.name} {(entry / 'cmdline').read_bytes()!r}")
    return found


@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "unsandboxed"])
def test_the_served_app_is_gone_after_the_session_and_the_replay(sandbox: bool) -> None:
    root = Path(tempfile.mkdtemp(prefix="e2s-", dir="/tmp"))
    spec = prepare_demo(root / "demo", True, kind=WEB)
    assert spec.web is not None
    marker = f"HARNESS_SERVED={NONCE}-{root.name}"
    web = spec.web.model_copy(update={"serve": f"{marker} {spec.web.serve}"})
    spec = spec.model_copy(update={"sandbox": sandbox, "web": web})

    done = harness("run", "--wait", "--specs", json.dumps([spec.model_dump(mode="json")]))

    log = harness("logs", "agent_1", "-n", "100000").stdout
    assert done.returncode == 0, done.stdout + done.stderr + log[-4000:]
    files = WorkspaceFiles(next((spec.project_dir / ".claude-agent").iterdir()))
    assert read_model(files.state, AgentState).phase is Phase.DONE
    assert "browser checks: " in log and "pass again" in log, log[-4000:]
    if not sandbox:
        assert "sandbox: OFF" in log
    assert left_in(spec.project_dir.resolve(), marker.encode()) == []

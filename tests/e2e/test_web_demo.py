"""``harness demo --web`` end to end: the model checks its feature in a real browser.

``harness demo --web --auto-accept --wait`` as a person types it (a daemon of the test's
own), sandboxed, with ``SEARXNG_URL`` pointing at a local stand-in. The coding session
serves the app in its sandbox, opens it with Playwright's MCP server driving Debian's
Chromium, reads it and takes a screenshot. The run must end DONE; the trace must hold
the browser's tool calls; the workspace a real PNG the harness took (signature, ``IHDR``
size), listed at issue_closure; the replay before the merge request must pass; the
stand-in must have been queried and its result cited.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from agent.core.browser.install import BrowserUnavailable, ensure_installed
from agent.core.browser.screenshots import png_size
from agent.core.trace.trace import trace_path
from agent.frontend.demo import WEB, prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import IssueClosureCheckpoint
from common.schemas.milestone import FileMilestone
from common.workspace import checkpoints
from common.workspace.setup import prepare_workspace
from tests.core.research_stand_ins import NONCE, StandIn, searxng
from tests.e2e.agents import REPO, finish, log_text

pytestmark = pytest.mark.slow


@pytest.fixture
def browser_installed() -> None:
    try:
        ensure_installed()
    except BrowserUnavailable as e:
        pytest.skip(f"no browser here: {e}")


def run_web_demo(
    root: Path, environ: dict[str, str], playbook: Path | None = None
) -> tuple[WorkspaceFiles, float]:
    """The web demo (its playbook, or ``playbook``), run to its end by a real agent
    process; its files and wall time."""
    spec = prepare_demo(root / "demo", True, kind=WEB)
    if playbook is not None:
        spec = spec.model_copy(update={"playbook": playbook})
    files = WorkspaceFiles(prepare_workspace(spec))
    log = (files.logs / "e2e.log").open("ab")
    started = time.monotonic()
    agent = subprocess.Popen(
        [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
        cwd=REPO,
        env={**os.environ, **environ},
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert finish(agent, timeout=150) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            agent.kill()
    return files, time.monotonic() - started


def harness_demo_web(root: Path, environ: dict[str, str]) -> tuple[WorkspaceFiles, float]:
    """``harness demo --web --auto-accept --wait`` as a person types it (its own daemon in
    the test's ``HARNESS_HOME``); the demo's workspace files and the command's wall time."""
    started = time.monotonic()
    command = ["demo", "--web", "--auto-accept", "--wait", "--dir", str(root)]
    done = subprocess.run(
        [sys.executable, "-m", "agent.control", *command],
        cwd=REPO,
        env={**os.environ, **environ},
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stdout + done.stderr
    assert "agent_1: done" in done.stdout
    return WorkspaceFiles(next((root / "notes-web" / ".claude-agent").iterdir())), seconds


@pytest.mark.usefixtures("browser_installed", "daemon_home")
def test_the_web_demo_checks_its_feature_in_the_browser_and_cites_its_research() -> None:
    service = StandIn(searxng)
    root = Path(tempfile.mkdtemp(prefix="e2w-", dir="/tmp")) / "demo"
    try:
        files, seconds = harness_demo_web(root, {"SEARXNG_URL": service.url})
    finally:
        service.close()
    print(f"web demo: {seconds:.1f} s")
    assert read_model(files.state, AgentState).phase is Phase.DONE
    (path, _), *more = service.requests
    assert "format=json" in path and not more
    (issue,) = read_model(files.milestone, FileMilestone).issues
    assert issue.state == "closed"
    (sources,) = [n.body for n in issue.notes if n.body.startswith("Sources")]
    assert f"- `https://docs.example.org/{NONCE}/0`" in sources.splitlines()

    events = [json.loads(line) for line in trace_path(files).read_text().splitlines()]
    called = [e["name"] for e in events if e.get("type") == "tool_call"]
    for tool in ("browser_navigate", "browser_snapshot", "browser_take_screenshot"):
        assert f"mcp__browser__{tool}" in called
    results = [e for e in events if e.get("type") == "tool_result" and not e.get("is_error")]
    assert any("3 notes" in json.dumps(e) for e in results)  # the snapshot saw the feature
    (shot,) = [e for e in events if e.get("type") == "screenshot"]

    picture = Path(shot["path"])
    assert picture.parent == files.root / "screenshots" and picture.name == "issue-1-s1-1.png"
    size = png_size(picture.read_bytes()[:24])
    assert size is not None and size == (shot["width"], shot["height"]) and size[0] > 0
    closures = [c for c in checkpoints.history(files) if isinstance(c, IssueClosureCheckpoint)]
    assert closures and closures[-1].context.screenshots == [str(picture)]
    # Before the merge request, the harness replayed the issue's check in a sandbox of its own.
    (check,) = read_model(files.state, AgentState).browser_checks
    assert [call.tool for call in check.calls] == ["browser_navigate", "browser_snapshot"]
    whole_log = "".join(p.read_text(errors="replace") for p in files.logs.glob("*.log"))
    assert "browser checks: 2 call(s) of 1 issue(s) pass again" in whole_log

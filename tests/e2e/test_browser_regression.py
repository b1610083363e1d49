"""The replay before the merge request finds a browser check that no longer passes.

Through the real CLI, sandboxed, on the web demo: the coding session serves, instead
of the project's app, a page of its own with a Save button, checks it in the browser
(navigate, snapshot, click Save) and reports done. Before the merge request the harness
serves the app with the spec's serve command and replays that check: the app has no
Save button, so the click fails and the run stops at regression_approval (which always
waits for a person) with the failing call named as the regression.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from agent.frontend.demo import WEB, prepare_demo
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import CheckpointType, RegressionApprovalCheckpoint
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import REPO, next_pending
from tests.e2e.test_web_demo import browser_installed

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("browser_installed")]
__all__ = ["browser_installed"]  # the fixture, used by name

FAKE = """from http.server import BaseHTTPRequestHandler, HTTPServer

PAGE = b"<!doctype html><title>Notes</title><h1>Notes</h1><button>Save</button>"


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(PAGE)


HTTPServer(("127.0.0.1", 8123), Page).serve_forever()
"""
SAVE = {"element": "the Save button", "target": "button"}


def regression_playbook(path: Path) -> Path:
    """The web demo's playbook whose coding session checks a page the app does not serve."""
    book: dict[str, Any] = json.loads((WEB.assets / "playbook.json").read_text())
    (coding,) = [s for s in book["scenarios"] if s["name"].startswith("coding")]
    for step in coding["steps"]:
        for use in step.get("tool_uses", []):
            if use["input"].get("command") == "python3 app.py 8123":
                use["input"]["command"] = "python3 fake_page.py"
    at = next(i for i, s in enumerate(coding["steps"]) if "fake_page.py" in json.dumps(s))
    write = {"file_path": "{{project_dir}}/fake_page.py", "content": FAKE}
    coding["steps"].insert(at, {"tool_uses": [{"name": "Write", "input": write}]})
    at = next(i for i, s in enumerate(coding["steps"]) if "browser_snapshot" in json.dumps(s))
    click = {"tool_uses": [{"name": "mcp__browser__browser_click", "input": SAVE}]}
    coding["steps"].insert(at + 1, click)
    path.write_text(json.dumps(book))
    return path


async def test_a_check_the_served_app_fails_now_stops_at_regression_approval() -> None:
    root = Path(tempfile.mkdtemp(prefix="e2r-", dir="/tmp"))
    spec = prepare_demo(root / "demo", True, kind=WEB)
    playbook = regression_playbook(root / "playbook.json")
    files = WorkspaceFiles(prepare_workspace(spec.model_copy(update={"playbook": playbook})))
    with (files.logs / "e2e.log").open("ab") as log:
        agent = subprocess.Popen(
            [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
            cwd=REPO,
            env=dict(os.environ),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        pending = await next_pending(files, agent, timeout=120)
    finally:
        agent.terminate()
        agent.wait(timeout=30)
    assert pending.type is CheckpointType.REGRESSION_APPROVAL
    assert isinstance(pending, RegressionApprovalCheckpoint)
    (finding,) = pending.context.newly_failing
    assert finding.startswith('(browser check of issue #1: browser_click {"element": "the Save')
    text = (files.logs / "e2e.log").read_text(errors="replace")
    assert "browser checks: 1 of 1 issue(s) fail again" in text

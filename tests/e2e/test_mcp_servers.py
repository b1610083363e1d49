"""The demo with an MCP server and a host from the repository's ``.harness.json``.

A real agent process on the demo (auto-accept). The project's ``.harness.json`` names a
stdio MCP server under the project (``notes_server.py``, standard library) for coding
sessions, and one ``host:port`` the sandbox may reach. project_verification shows both
and waits for a person whatever auto-accept says (a repository file must not widen the
sandbox unseen); once approved they are pinned in the state. The first coding session
calls ``mcp__notes__write_note`` directly (offered without ToolSearch), and its Bash
fetches the listed host and an unlisted port of the same host through the sandbox's
filtering proxy: the call is judged and traced, the note is in the project, the listed
host answered, the other was refused with a ``[sandbox] refused`` line in the agent log.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent.core.policy.audit import read_counts
from agent.core.trace.trace import trace_path
from agent.frontend.demo import prepare_demo
from agent.model.playbook import DEMO_PLAYBOOK
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import ProjectVerificationCheckpoint
from common.workspace import answer, git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, next_pending, start_agent
from tests.sandbox.test_host_proxy import outward_address

pytestmark = pytest.mark.slow

NOTE_SERVER = Path(__file__).parent / "data" / "mcp_note_server.py"
CODING = "coding: Add slugify"
FETCH = (
    'python3 -c "import sys, urllib.request as u\n'
    "for port in sys.argv[1:]:\n"
    "    try: print(port, u.urlopen(f'http://{host}:{{port}}/', timeout=10).read().decode())\n"
    "    except Exception as e: print(port, 'refused:', e)\" {listed} {other}"
)


class Site:
    """A host-side HTTP server on this machine's outward address, saying its nonce."""

    def __init__(self, address: str, nonce: str) -> None:
        class Answer(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = nonce.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: object) -> None:
                pass

        self.nonce = nonce
        self.server = ThreadingHTTPServer((address, 0), Answer)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def address() -> str:
    found = outward_address()
    if found is None:
        pytest.skip("this machine has no address but loopback")
    return found


@pytest.fixture
def sites(address: str) -> Iterator[tuple[Site, Site]]:
    nonce = Path(tempfile.mkdtemp(prefix="mcpe-")).name
    listed, other = Site(address, f"listed-{nonce}"), Site(address, f"other-{nonce}")
    try:
        yield listed, other
    finally:
        listed.close()
        other.close()


def playbook(path: Path, note: str, fetch: str) -> Path:
    """The demo's playbook with a note and a fetch first in #1's coding session."""
    data: dict[str, Any] = json.loads(DEMO_PLAYBOOK.read_text())
    (scenario,) = [s for s in data["scenarios"] if s["name"] == CODING]
    first = {
        "text": "First a note, and a look at the registry.",
        "tool_uses": [
            {"name": "mcp__notes__write_note", "input": {"text": note}},
            {"name": "Bash", "input": {"command": fetch, "description": "fetch"}},
        ],
    }
    scenario["steps"] = [first, *scenario["steps"]]
    path.write_text(json.dumps(data))
    return path


def events(files: WorkspaceFiles) -> list[dict[str, Any]]:
    return [json.loads(line) for line in trace_path(files).read_text().splitlines()]


async def test_a_repository_mcp_server_and_host_are_approved_offered_called_and_traced(
    address: str, sites: tuple[Site, Site]
) -> None:
    listed, other = sites
    root = Path(tempfile.mkdtemp(prefix="e2m-", dir="/tmp"))
    note = f"note-{root.name}"
    fetch = FETCH.format(host=address, listed=listed.port, other=other.port)
    spec = prepare_demo(root / "demo", True)
    spec = spec.model_copy(update={"playbook": playbook(root / "playbook.json", note, fetch)})
    project = spec.project_dir
    shutil.copy(NOTE_SERVER, project / "notes_server.py")
    settings = {
        "mcp_servers": [{"name": "notes", "command": ["python3", "notes_server.py"]}],
        "sandbox_hosts": [f"{address}:{listed.port}"],
    }
    (project / ".harness.json").write_text(json.dumps(settings))
    git.git(project, "add", "notes_server.py", ".harness.json")
    git.git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "mcp")
    files = WorkspaceFiles(prepare_workspace(spec))
    agent = start_agent(files)
    try:
        waiting = await next_pending(files, agent, timeout=120)
        assert isinstance(waiting, ProjectVerificationCheckpoint), log_text(files)
        assert [s.name for s in waiting.context.mcp_servers] == ["notes"]
        assert waiting.context.sandbox_hosts == [f"{address}:{listed.port}"]
        assert waiting.decision is None  # auto-accept on, yet it waits for a person
        shown = "\n".join(waiting.what_happened)
        assert "MCP server notes runs `python3 notes_server.py` in the sandbox" in shown
        answer.approve(files.root, None, None)
        assert finish(agent, timeout=240) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            agent.kill()
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    assert [s.name for s in state.repo_mcp_servers] == ["notes"]
    assert state.repo_sandbox_hosts == [f"{address}:{listed.port}"]
    # The tool's effect: the server ran in the coding session's sandbox, in the project.
    assert (project / "notes.txt").read_text() == f"{note}\n"
    trace = events(files)
    starts = {e["label"]: e["mcp_servers"] for e in trace if e["type"] == "session_start"}
    assert starts["coding #1 (session 1)"] == ["notes"]
    assert all(not servers for label, servers in starts.items() if "coding" not in label)
    calls = [e for e in trace if e["type"] == "tool_call"]
    (call,) = [e for e in calls if e["name"] == "mcp__notes__write_note"]
    assert call["input"] == {"text": note}
    results = {e["id"]: e for e in trace if e["type"] == "tool_result"}
    assert not results[call["id"]]["is_error"]
    (bash,) = [e for e in calls if e["name"] == "Bash" and "urllib" in e["input"]["command"]]
    fetched = json.dumps(results[bash["id"]])
    assert f"{listed.port} {listed.nonce}" in fetched
    assert f"{other.port} refused: HTTP Error 403" in fetched and other.nonce not in fetched
    log = (files.logs / "e2e.log").read_text(errors="replace")  # the agent's own output
    assert "[policy] allow mcp__notes__write_note" in log
    assert f"[sandbox] refused GET {address}:{other.port}: not in the sandbox's allowlist" in log
    assert read_counts(files).host_refused == 1  # what harness status and the metrics show

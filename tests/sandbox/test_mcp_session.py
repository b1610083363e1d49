"""An MCP server of the user's choice, through the real SDK, CLI and sandbox.

A tiny stdio server under the project (``mcp_note_server.py``) is given to a coding
session; the embedded model, named as a real model, calls ``mcp__notes__write_note``
directly. The tool is offered without ToolSearch, the hooks judge the call, the trace
records it, and the server ran inside the session's sandbox (its pid is the sandbox's).
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agent.core.log import AgentLog
from agent.core.run.network_access import hosts_by_kind
from agent.core.session import prompts
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import surface_for, with_servers
from agent.core.trace.trace import tracing
from agent.model import PlaybookServer
from agent.model.playbook import Playbook
from agent.model.recording import RequestRecorder
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from common.schemas.mcp_server import McpServer
from common.schemas.sandbox_hosts import split_host_port
from tests.sandbox.test_host_proxy import outward_address

BWRAP = find_bwrap()
NOTE_SERVER = Path(__file__).parents[1] / "e2e" / "data" / "mcp_note_server.py"
SHOUT_SERVER = Path(__file__).parents[1] / "e2e" / "data" / "mcp_shout_server.py"
REAL_MODEL = "claude-sonnet-4-5"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}"),
]


class KeepBodies(RequestRecorder):
    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.bodies: list[dict[str, Any]] = []

    def record(self, raw_size: int, body: dict[str, Any]) -> None:
        self.bodies.append(body)
        super().record(raw_size, body)


def playbook(tool: str, nonce: str) -> Playbook:
    return Playbook.model_validate(
        {
            "schema_version": 1,
            "scenarios": [
                {
                    "name": "notes",
                    "match": f"Session: {nonce}",
                    "steps": [{"tool_uses": [{"name": tool, "input": {"text": nonce}}]}],
                    "final_text": "Done.",
                }
            ],
        }
    )


async def run_with_server(
    tmp_path: Path, server: McpServer, tool: str, after: list[str] | None = None
) -> tuple[Path, list[dict[str, Any]], str, list[dict[str, Any]]]:
    """Run one sandboxed coding session given ``server`` whose model calls ``tool``:
    the project, the trace's events, the agent log and the model's requests. The
    sandbox's proxy is given the server's hosts for its kinds, as the run gives them;
    ``after`` gets the proxy's refusal of each of them once the session has ended."""
    nonce = f"mcp-{tmp_path.name}"
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(NOTE_SERVER, project / "notes_server.py")
    recorder = KeepBodies(tmp_path / "requests.jsonl")
    out = io.StringIO()
    assert BWRAP is not None
    with PlaybookServer(playbook(tool, nonce), recorder=recorder) as model:
        env = {
            "ANTHROPIC_BASE_URL": model.url,
            "ANTHROPIC_API_KEY": "local-playbook",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        async with session_sandbox(project, BWRAP, env) as box:
            config = SessionConfig(
                project_dir=project,
                model=REAL_MODEL,
                env=box.env,
                local_model=True,
                cli_path=box.cli_path,
                mcp_servers=(server,),
            )
            box.allow_hosts((), hosts_by_kind([server]))
            surface = with_servers("coding", surface_for("coding"), config.mcp_servers)
            with tracing(tmp_path / "trace.jsonl"), box.hosts_during("coding"):
                await run_session(
                    "coding #1",
                    prompts.render("system"),
                    f"Session: {nonce}",
                    config,
                    SessionReports(surface=surface),
                    AgentLog(out),
                )
            assert box.hosts is not None
            for host in server.reachable():
                name, port = split_host_port(host)
                (after if after is not None else []).append(
                    str(box.hosts.allowlist.refusal(name, port))
                )
    events = [json.loads(line) for line in (tmp_path / "trace.jsonl").read_text().splitlines()]
    return project, events, out.getvalue(), recorder.bodies


async def test_a_configured_servers_tool_is_offered_called_traced_and_runs_in_the_sandbox(
    tmp_path: Path,
) -> None:
    server = McpServer(name="notes", command=["python3", "notes_server.py"])
    project, events, log, bodies = await run_with_server(tmp_path, server, "mcp__notes__write_note")
    nonce = f"mcp-{tmp_path.name}"
    assert (project / "notes.txt").read_text() == f"{nonce}\n"  # its effect, in the project
    first = next(body for body in bodies if body.get("tools"))
    offered = [tool["name"] for tool in first["tools"]]
    assert "mcp__notes__write_note" in offered  # directly: no ToolSearch, nothing deferred
    assert "ToolSearch" not in offered
    start = next(e for e in events if e["type"] == "session_start")
    assert start["mcp_servers"] == ["notes"]
    call = next(e for e in events if e["type"] == "tool_call")
    assert (call["name"], call["input"]) == ("mcp__notes__write_note", {"text": nonce})
    result = next(e for e in events if e["type"] == "tool_result" and e["id"] == call["id"])
    assert not result["is_error"]
    # The server is the CLI's child inside the sandbox's PID namespace, in the project.
    answer = json.dumps(result)
    assert f"noted in {project}/notes.txt pid " in answer
    pid = int(answer.split(" pid ")[1].split('"')[0].split("\\")[0])
    assert pid < 100, answer
    assert "[policy] allow mcp__notes__write_note" in log  # judged by the hooks, and counted


async def test_a_tool_of_a_server_the_session_was_not_given_never_runs(tmp_path: Path) -> None:
    server = McpServer(name="notes", command=["python3", "notes_server.py"], sessions=("mr",))
    project, events, _log, bodies = await run_with_server(
        tmp_path, server, "mcp__notes__write_note"
    )
    assert not (project / "notes.txt").exists()
    first = next(body for body in bodies if body.get("tools"))
    assert not any(tool["name"].startswith("mcp__notes__") for tool in first["tools"])
    start = next(e for e in events if e["type"] == "session_start")
    assert start["mcp_servers"] == []


async def test_an_http_servers_tool_is_reached_through_the_proxy_while_its_kind_runs(
    tmp_path: Path,
) -> None:
    address = outward_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    with socket.socket() as free:
        free.bind((address, 0))
        port = free.getsockname()[1]
    served = subprocess.Popen([sys.executable, "-I", str(SHOUT_SERVER), address, str(port)])
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection((address, port), 0.1):
                break
            time.sleep(0.05)
        server = McpServer(name="shout", url=f"http://{address}:{port}/mcp")
        after: list[str] = []
        _project, events, log, _bodies = await run_with_server(
            tmp_path, server, "mcp__shout__shout", after
        )
    finally:
        served.kill()
        served.wait()
    call = next(e for e in events if e["type"] == "tool_call")
    result = next(e for e in events if e["type"] == "tool_result" and e["id"] == call["id"])
    assert not result["is_error"]
    assert f"MCP-{tmp_path.name.upper()}" in json.dumps(result)  # the CLI, inside, via the proxy
    assert "[sandbox] refused" not in log
    assert after == ["not in the sandbox's allowlist (sandbox_hosts)"]  # only while it ran

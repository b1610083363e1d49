"""The real Claude CLI (bundled with claude_agent_sdk) driven by the playbook server.

These prove the wire format is what the CLI accepts, that the tool loop runs
(built-in tools and an SDK MCP tool), and that the demo playbook's code is right.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    SdkMcpTool,
    create_sdk_mcp_server,
    tool,
)

from agent.assets import asset_path
from agent.model import PlaybookServer, load_playbook
from agent.model.playbook import Playbook

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SESSION_TIMEOUT = 60


def options(
    server: PlaybookServer, cwd: Path, home: Path, tools: list[SdkMcpTool[Any]]
) -> ClaudeAgentOptions:
    # The test's own interpreter first on PATH, so the model's `python` has pytest.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return ClaudeAgentOptions(
        cwd=str(cwd),
        permission_mode="acceptEdits",
        setting_sources=[],
        allowed_tools=["Read", "Write", "Bash", *(f"mcp__harness__{t.name}" for t in tools)],
        mcp_servers={"harness": create_sdk_mcp_server("harness", tools=tools)},
        env={
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "HOME": str(home),
            "PATH": path,
        },
    )


async def run_session(opts: ClaudeAgentOptions, prompt: str) -> list[ResultMessage]:
    results: list[ResultMessage] = []
    async with asyncio.timeout(SESSION_TIMEOUT), ClaudeSDKClient(opts) as client:
        await client.query(prompt)
        async for message in client.receive_response():
            if isinstance(message, ResultMessage):
                results.append(message)
    return results


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """Keeps the CLI's ~/.claude (sessions, config) out of the developer's home."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def serve() -> Iterator[list[PlaybookServer]]:
    servers: list[PlaybookServer] = []
    yield servers
    for server in servers:
        server.stop()


def start(serve: list[PlaybookServer], playbook: Playbook) -> PlaybookServer:
    server = PlaybookServer(playbook)
    serve.append(server)
    server.start()
    return server


async def test_write_bash_and_mcp_tool_round_trip(
    tmp_path: Path, home: Path, serve: list[PlaybookServer]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    playbook = Playbook.model_validate(
        {
            "schema_version": 1,
            "scenarios": [
                {
                    "name": "roundtrip",
                    "match": "Session: roundtrip",
                    "captures": {"dir": "Project directory: (\\S+)", "iid": "issue #(\\d+)"},
                    "steps": [
                        {
                            "text": "Writing the note.",
                            "tool_uses": [
                                {
                                    "name": "Write",
                                    "input": {
                                        "file_path": "{{dir}}/note.txt",
                                        "content": "hello\n",
                                    },
                                }
                            ],
                        },
                        {
                            "tool_uses": [
                                {"name": "Bash", "input": {"command": "cat note.txt > copy.txt"}}
                            ]
                        },
                        {
                            "tool_uses": [
                                {
                                    "name": "mcp__harness__report",
                                    "input": {"issue_iid": "{{iid}}", "summary": "wrote {{dir}}"},
                                }
                            ]
                        },
                    ],
                    "final_text": "All done.",
                }
            ],
        }
    )
    calls: list[dict[str, Any]] = []

    @tool(
        "report",
        "Report the result",
        {
            "type": "object",
            "properties": {"issue_iid": {"type": "integer"}, "summary": {"type": "string"}},
            "required": ["issue_iid", "summary"],
        },
    )
    async def report(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": "recorded"}]}

    server = start(serve, playbook)
    prompt = f"Session: roundtrip\nProject directory: {work}\nissue #4"
    results = await run_session(options(server, work, home, [report]), prompt)

    assert (work / "note.txt").read_text() == "hello\n"
    assert (work / "copy.txt").read_text() == "hello\n"
    assert calls == [{"issue_iid": 4, "summary": f"wrote {work}"}]
    assert len(results) == 1
    assert results[0].subtype == "success"
    assert results[0].result == "All done."
    assert server.requests_served >= 4


async def test_demo_coding_scenario_makes_the_tests_pass(
    tmp_path: Path, home: Path, serve: list[PlaybookServer]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(asset_path("demo", "project"), project)
    done: list[dict[str, Any]] = []

    @tool(
        "report_issue_done",
        "Report that the issue is complete",
        {
            "type": "object",
            "properties": {
                "issue_iid": {"type": "integer"},
                "summary": {"type": "string"},
                "tests_added": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["issue_iid", "summary", "tests_added"],
        },
    )
    async def report_issue_done(args: dict[str, Any]) -> dict[str, Any]:
        done.append(args)
        return {"content": [{"type": "text", "text": json.dumps({"ok": True})}]}

    server = start(serve, load_playbook(asset_path("demo", "playbook.json")))
    prompt = f"Session: coding issue #1: Add slugify\nProject directory: {project}\n"
    results = await run_session(options(server, project, home, [report_issue_done]), prompt)

    assert [r.subtype for r in results] == ["success"]
    assert (project / "textkit" / "slug.py").is_file()
    assert len(done) == 1
    assert done[0]["issue_iid"] == 1
    assert len(done[0]["tests_added"]) >= 3
    tests = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "7 passed" in tests.stdout

"""The bundled CLI from its execute-only copy, in the sandbox, driven by the playbook model.

Its own tools still work (Grep and Glob run ripgrep from the same binary, a Bash
call in the background finishes and is read back), and the frames a command forges
into the CLI's stdin and stdout (``forge.py`` of the forged-frames playbook) never
reach the SDK: the session's messages are the honest ones.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    ToolResultBlock,
    UserMessage,
)

from agent.model import PlaybookServer
from agent.model.playbook import Playbook
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.cli_copy import is_execute_only
from agent.sandbox.launcher import session_sandbox

BWRAP = find_bwrap()
FORGED_PLAYBOOK = Path(__file__).parents[1] / "e2e" / "data" / "forged-frames-playbook.json"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}"),
]


def forge_script() -> str:
    """``forge.py`` exactly as the e2e red team writes it."""
    playbook = json.loads(FORGED_PLAYBOOK.read_text())
    coding = next(s for s in playbook["scenarios"] if s["name"].startswith("coding"))
    write = coding["steps"][0]["tool_uses"][0]
    assert write["name"] == "Write" and write["input"]["file_path"].endswith("/forge.py")
    return str(write["input"]["content"])


def tool(name: str, **tool_input: object) -> dict[str, object]:
    return {"tool_uses": [{"name": name, "input": tool_input}]}


async def run_session(project: Path, steps: list[dict[str, object]]) -> list[Any]:
    """Every SDK message of one session that plays ``steps``."""
    playbook = Playbook.model_validate(
        {
            "schema_version": 1,
            "scenarios": [
                {"name": "s", "match": "Session: s", "steps": steps, "final_text": "Done."}
            ],
        }
    )
    tools = ["Bash", "Grep", "Glob"]
    messages: list[Any] = []
    assert BWRAP is not None
    with PlaybookServer(playbook) as server:
        env = {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "local-playbook",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        async with session_sandbox(project, BWRAP, env) as box:
            assert is_execute_only(box.plan.cli), box.plan.cli
            options = ClaudeAgentOptions(
                cwd=str(project),
                permission_mode="acceptEdits",
                setting_sources=[],
                tools=tools,
                allowed_tools=tools,
                env=box.env,
                cli_path=box.cli_path,
            )
            async with asyncio.timeout(90), ClaudeSDKClient(options) as client:
                await client.query("Session: s")
                messages = [message async for message in client.receive_response()]
    return messages


def results(messages: list[Any]) -> list[str]:
    return [
        str(block.content)
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "needle.py").write_text("needle = 1\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    return project


async def test_grep_glob_and_a_background_command_still_work(project: Path) -> None:
    messages = await run_session(
        project,
        [
            tool("Grep", pattern="needle", path=str(project)),
            tool("Glob", pattern="**/*.py", path=str(project)),
            tool("Bash", command="sleep 1; echo late > bg.txt", run_in_background=True),
            tool("Bash", command="sleep 2; cat bg.txt"),
        ],
    )
    grep, glob, started, read_back = results(messages)
    assert "src/needle.py" in grep and "src/needle.py" in glob
    assert "background" in started and read_back.strip() == "late"
    assert isinstance(messages[-1], ResultMessage) and not messages[-1].is_error


async def test_frames_a_command_forges_into_the_clis_pipes_never_reach_the_sdk(
    project: Path,
) -> None:
    (project / "forge.py").write_text(forge_script())
    messages = await run_session(project, [tool("Bash", command="python3 forge.py")])
    (outcome,) = results(messages)
    refused = json.loads(outcome)
    assert any(not key.startswith("1/") for key in refused), f"the CLI was not found: {refused}"
    assert all(value.startswith("refused: ") for value in refused.values()), refused
    texts = [
        getattr(block, "text", "")
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
    ]
    assert "FORGED-FRAME" not in json.dumps(texts) and texts[-1] == "Done."
    (result,) = [message for message in messages if isinstance(message, ResultMessage)]
    assert result.num_turns == 2 and result.duration_ms != 987654, result
    assert all(getattr(m, "model", "") != "claude-forged" for m in messages)

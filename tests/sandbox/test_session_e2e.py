"""The bundled Claude CLI inside the sandbox, driven by the playbook model.

The model's Bash leaves a ``nohup sleep`` behind, writes the project, tries
``.git/config`` and the daemon's home: after the session the sleeper is gone,
the project write is there and nothing else changed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

import pytest
from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    ResultMessage,
    ToolResultBlock,
    UserMessage,
)

from agent.model import PlaybookServer
from agent.model.playbook import Playbook
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from tests.procfs import cmdline_of

BWRAP = find_bwrap()
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}"),
]


def _bash(command: str) -> dict[str, object]:
    return {"tool_uses": [{"name": "Bash", "input": {"command": command}}]}


def _playbook(marker: str, harness_home: Path) -> Playbook:
    return Playbook.model_validate(
        {
            "schema_version": 1,
            "scenarios": [
                {
                    "name": "escape",
                    "match": "Session: escape",
                    "steps": [
                        _bash(f"nohup sleep {marker} >/dev/null 2>&1 &"),
                        _bash("echo written > from_sandbox.txt"),
                        _bash("python3 -c \"open('.gi' + 't/refs/x', 'w')\""),
                        _bash(
                            f"ls {harness_home} || echo no-harness-home; "
                            "echo ${HARNESS_HOME:-unset}"
                        ),
                    ],
                    "final_text": "Done.",
                }
            ],
        }
    )


def _alive(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if cmdline_of(int(entry.name))[:2] == ["sleep", marker]:
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _gone(marker: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _alive(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


async def test_a_session_in_the_sandbox_leaves_nothing_behind(
    tmp_path: Path, isolated_home: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    git_config = (project / ".git" / "config").read_text()
    marker = f"{4000 + os.getpid() % 1000}"
    assert BWRAP is not None
    outputs: list[str] = []
    with PlaybookServer(_playbook(marker, isolated_home)) as server:
        env = {
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "local-playbook",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
        async with session_sandbox(project, BWRAP, env) as box:
            options = ClaudeAgentOptions(
                cwd=str(project),
                permission_mode="acceptEdits",
                setting_sources=[],
                tools=["Bash"],
                allowed_tools=["Bash"],
                env=box.env,
                cli_path=box.cli_path,
            )
            result: ResultMessage | None = None
            async with asyncio.timeout(90), ClaudeSDKClient(options) as client:
                await client.query("Session: escape")
                async for message in client.receive_response():
                    if isinstance(message, UserMessage) and isinstance(message.content, list):
                        outputs += [
                            str(block.content)
                            for block in message.content
                            if isinstance(block, ToolResultBlock)
                        ]
                    if isinstance(message, ResultMessage):
                        result = message
    assert result is not None and not result.is_error, result
    assert (project / "from_sandbox.txt").read_text() == "written\n"
    assert (project / ".git" / "config").read_text() == git_config
    assert any("Read-only file system" in out for out in outputs), outputs
    assert not (project / ".git" / "refs" / "x").exists()
    assert any("no-harness-home" in out and "unset" in out for out in outputs), outputs
    assert await asyncio.to_thread(_gone, marker, 5.0), "the nohup sleep outlived the session"

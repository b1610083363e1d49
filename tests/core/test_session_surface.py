"""Through the real SDK and bundled CLI with a real model name: a lean, direct tool surface.

With a real model name the CLI hides MCP tools behind ToolSearch unless the tool
set is exact; these prove the harness's sessions get exactly their tools, call
the harness tools directly, and send first requests of at most 30 KB.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.core.log import AgentLog
from agent.core.session import prompts
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import ToolSurface, surface_for
from agent.frontend.demo import prepare_demo
from agent.model import PlaybookServer, load_playbook
from agent.model.playbook import DEMO_PLAYBOOK
from agent.model.recording import RequestRecorder
from benchmarks.session_requests import measure
from common.errors import SessionError
from common.schemas.spec import AgentSpec

pytestmark = pytest.mark.slow

REAL_MODEL = "claude-sonnet-4-5"
FIRST_REQUEST_LIMIT = 30_000
SKILLS_LISTING = "skills are available for use with the Skill tool"
AGENTS_LISTING = "Available agent types"


class KeepBodies(RequestRecorder):
    """Records sizes as usual and keeps each body, to look inside the first request."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.bodies: list[dict[str, Any]] = []

    def record(self, raw_size: int, body: dict[str, Any]) -> None:
        self.bodies.append(body)
        super().record(raw_size, body)


@pytest.fixture
def demo(tmp_path: Path) -> AgentSpec:
    return prepare_demo(tmp_path / "demo", auto_accept=True)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[PlaybookServer, KeepBodies]]:
    recorder = KeepBodies(tmp_path / "requests.jsonl")
    with PlaybookServer(load_playbook(DEMO_PLAYBOOK), recorder=recorder) as running:
        yield running, recorder


def config(server: PlaybookServer, demo: AgentSpec) -> SessionConfig:
    env = {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "local-playbook",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    return SessionConfig(project_dir=demo.project_dir, model=REAL_MODEL, env=env, local_model=True)


def initializer_prompt(demo: AgentSpec) -> str:
    return prompts.render(
        "initializer",
        project_dir=demo.project_dir,
        target_branch="main",
        spec=demo.spec_file.read_text(),
        section_list="- Context",
        feedback="",
    )


async def test_the_initializer_calls_its_tool_directly_with_nothing_else_offered(
    server: tuple[PlaybookServer, KeepBodies], demo: AgentSpec
) -> None:
    running, recorder = server
    reports = SessionReports(surface=surface_for("initializer"))
    out = io.StringIO()
    result = await run_session(
        "initializer",
        prompts.render("system"),
        initializer_prompt(demo),
        config(running, demo),
        reports,
        AgentLog(out),
    )
    assert reports.proposal is not None
    assert reports.calls == ["propose_issues"]
    assert result.cost_usd == 0.0
    first = next(b for b in recorder.bodies if b.get("tools"))
    assert first["model"] == REAL_MODEL
    offered = [t["name"] for t in first["tools"]]
    assert sorted(offered) == sorted(["Read", "Glob", "Grep", "mcp__harness__propose_issues"])
    text = json.dumps(first["messages"])
    assert SKILLS_LISTING not in text
    assert AGENTS_LISTING not in text
    assert len(json.dumps(first).encode()) <= FIRST_REQUEST_LIMIT
    assert "ToolSearch" not in out.getvalue()


async def test_a_tool_the_cli_does_not_have_fails_the_session_naming_it(
    server: tuple[PlaybookServer, KeepBodies], demo: AgentSpec
) -> None:
    running, _ = server
    surface = ToolSurface(("Read", "MultiEdit", "TodoWrite"), ("propose_issues",))
    with pytest.raises(SessionError, match="does not offer MultiEdit, TodoWrite") as caught:
        await run_session(
            "initializer",
            prompts.render("system"),
            initializer_prompt(demo),
            config(running, demo),
            SessionReports(surface=surface),
            AgentLog(io.StringIO()),
        )
    assert "\n" not in str(caught.value)


async def test_every_demo_session_is_direct_and_its_first_request_at_most_30_kb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The gates and the model's Bash find pytest in this interpreter's folder, as in agent.process.
    monkeypatch.setenv(
        "PATH", os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    )
    measurement = await measure(REAL_MODEL, tmp_path)
    assert measurement.outcome == "done"
    kinds = {s.label.split()[0] for s in measurement.sessions}
    assert kinds == {"initializer", "enrichment", "coding", "merge"}
    for session in measurement.sessions:
        first = session.first
        assert first is not None, session.label
        assert first.model == REAL_MODEL
        assert sorted(first.tool_names) == sorted(session.surface.names()), session.label
        assert "ToolSearch" not in first.tool_names
        assert first.total_bytes <= FIRST_REQUEST_LIMIT, (session.label, first.total_bytes)
        called = [name for name in session.tool_calls if name.startswith("mcp__harness__")]
        assert called and set(called) <= set(session.surface.harness_names()), session.label
        assert "ToolSearch" not in session.tool_calls

"""``harness trace`` and ``harness replay`` on a recorded demo session (real CLI, real agent)."""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.control.replay import replay_session
from agent.control.replay_command import replay_box
from agent.core.log import AgentLog
from agent.core.session.hooks import ToolPolicy
from agent.core.trace.trace import read_trace, trace_path
from common.paths import WorkspaceFiles
from common.schemas.trace import ModelRequest, SessionEnd, SessionStart
from tests.e2e.agents import demo_workspace, finish, harness, log_text, start_agent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def recorded_demo() -> Iterator[WorkspaceFiles]:
    """One auto-accepted demo run, whose trace every test reads."""
    _spec, files = demo_workspace(auto_accept=True)
    agent = start_agent(files)
    assert finish(agent, 240) == 0, log_text(files)
    yield files


def coding_session(files: WorkspaceFiles) -> int:
    starts = [e for e in read_trace(trace_path(files)) if isinstance(e, SessionStart)]
    return next(e.session for e in starts if e.kind == "coding" and e.session is not None)


def test_the_trace_holds_every_session_with_requests_and_figures(
    recorded_demo: WorkspaceFiles,
) -> None:
    events = read_trace(trace_path(recorded_demo))
    kinds = {e.type for e in events}
    assert kinds >= {
        "session_start",
        "session_end",
        "model_request",
        "tool_call",
        "tool_result",
        "policy",
        "gate",
        "commit",
        "checkpoint",
        "decision",
    }
    starts = [e for e in events if isinstance(e, SessionStart)]
    ends = [e for e in events if isinstance(e, SessionEnd)]
    assert [e.session for e in starts] == list(range(1, len(starts) + 1))
    assert len(ends) == len(starts) and all(e.error is None for e in ends)
    requests = [e for e in events if isinstance(e, ModelRequest)]
    assert all(r.session is not None and r.status == 200 for r in requests)
    assert any(r.stop_reason == "tool_use" for r in requests)
    assert all(r.request_bytes > 0 and r.content for r in requests)


def test_one_session_at_a_time_keeps_each_sessions_events_together(
    recorded_demo: WorkspaceFiles,
) -> None:
    """As before sessions could overlap: a session's events lie between its start and its
    end, its requests are numbered 1, 2, … within it, and the harness's own events
    (gates, commits, checkpoints, decisions) belong to no session."""
    events = read_trace(trace_path(recorded_demo))
    running: int | None = None
    indexes: dict[int, list[int]] = {}
    for event in events:
        if isinstance(event, SessionStart):
            assert running is None
            running = event.session
        if event.type in ("gate", "commit", "checkpoint", "decision"):
            assert event.session is None, event
        else:
            assert event.session is not None and event.session == running, event
        if isinstance(event, ModelRequest):
            indexes.setdefault(event.session or 0, []).append(event.index)
        if isinstance(event, SessionEnd):
            running = None
    assert indexes and all(found == list(range(1, len(found) + 1)) for found in indexes.values())


def test_harness_trace_shows_a_session_and_its_json(recorded_demo: WorkspaceFiles) -> None:
    number = coding_session(recorded_demo)
    shown = harness("trace", str(recorded_demo.root), "--session", str(number))
    assert shown.returncode == 0, shown.stderr
    assert f"session {number}: coding" in shown.stdout
    assert "tool Write" in shown.stdout and "total: 1 session(s)" in shown.stdout
    as_json = harness("trace", str(recorded_demo.root), "--json")
    lines = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert {line["type"] for line in lines} >= {"session_start", "model_request"}
    missing = harness("trace", str(recorded_demo.root), "--session", "99")
    assert missing.returncode == 1 and "no session 99" in missing.stderr


def test_harness_replay_of_a_recorded_session_finds_no_difference(
    recorded_demo: WorkspaceFiles,
) -> None:
    number = coding_session(recorded_demo)
    before = subprocess.run(
        ["git", "-C", str(recorded_demo.root.parents[1]), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    replayed = harness("replay", str(recorded_demo.root), "--session", str(number))
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "behaved as recorded" in replayed.stdout
    after = subprocess.run(
        ["git", "-C", str(recorded_demo.root.parents[1]), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert after == before  # the replay ran in a clone, never in the project


async def test_a_changed_policy_is_caught_by_the_replay(
    recorded_demo: WorkspaceFiles, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_tests_dir(
        self: ToolPolicy, tool_name: str, tool_input: dict[str, Any], cwd: Path | None = None
    ) -> str | None:
        if tool_name == "Write" and "/tests/" in str(tool_input.get("file_path")):
            return "tests are written by a human now"
        return None

    monkeypatch.setattr(ToolPolicy, "check", no_tests_dir)
    events = read_trace(trace_path(recorded_demo))
    result = await replay_session(
        events, coding_session(recorded_demo), AgentLog(io.StringIO()), replay_box(recorded_demo)
    )
    text = "\n".join(result.differences)
    assert "policy decisions" in text
    assert "tests are written by a human now" in text
    assert "session touched" in text

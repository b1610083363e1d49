"""The endpoint probe: which answers end the run (one line), which are warnings.

Also: a session error reaches the run once, not wrapped in its attempts, and a
refused key is not tried three times.
"""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

from agent.core.endpoint.model_probe import ProbeAnswer, judge, probe_endpoint
from agent.core.endpoint.model_proxy import ModelProxy, Upstream
from agent.core.log import AgentLog
from agent.core.run import orchestrator, session_retries
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig
from common.errors import ModelEndpointError, SessionError
from common.paths import WorkspaceFiles
from common.project_env import ProjectEnv
from common.schemas.agent_state import AgentState
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo

from .model_upstream import Upstream as FakeEndpoint
from .test_model_proxy import closed_port

KEY = Upstream("http://gw:1", "api_key", "sk")


@pytest.mark.parametrize(
    ("answer", "upstream", "line"),
    [
        (
            ProbeAnswer(0, "refused"),
            KEY,
            "model endpoint http://gw:1 refused the connection; check ANTHROPIC_BASE_URL",
        ),
        (ProbeAnswer(0, "dns"), KEY, "model endpoint http://gw:1 has a host name that does not"),
        (ProbeAnswer(0, "timeout"), KEY, "model endpoint http://gw:1 did not answer within 10 s"),
        (
            ProbeAnswer(401, message="invalid x-api-key"),
            KEY,
            "model endpoint http://gw:1 answered 401: the API key was refused (invalid x-api-key);"
            " set ANTHROPIC_API_KEY",
        ),
        (
            ProbeAnswer(401),
            Upstream("http://gw:1", "oauth", "o"),
            "model endpoint http://gw:1 answered 401: the token was refused; "
            "set CLAUDE_CODE_OAUTH_TOKEN",
        ),
        (ProbeAnswer(401), Upstream("http://gw:1", "none"), "model endpoint http://gw:1 answered "),
        (ProbeAnswer(403, message="no"), KEY, "model endpoint http://gw:1 answered 403"),
    ],
)
def test_no_connection_401_and_403_end_the_run_in_one_line(
    answer: ProbeAnswer, upstream: Upstream, line: str
) -> None:
    with pytest.raises(ModelEndpointError) as raised:
        judge(answer, upstream, "claude-x")
    assert str(raised.value).startswith(line)
    assert "\n" not in str(raised.value)
    assert not raised.value.retryable


@pytest.mark.parametrize(
    ("status", "warned"), [(200, False), (400, True), (404, True), (429, True), (529, True)]
)
def test_other_answers_pass_or_warn(status: int, warned: bool) -> None:
    warnings = judge(ProbeAnswer(status, message="m"), KEY, "claude-x")
    assert bool(warnings) is warned
    if warned:
        assert warnings[0].startswith(f"model endpoint http://gw:1 answered {status}")


async def test_probe_through_the_proxy_passes_and_sends_the_real_key_once() -> None:
    with FakeEndpoint() as endpoint:
        upstream = Upstream(endpoint.url, "api_key", "sk-real")
        async with ModelProxy(upstream) as url:
            assert await probe_endpoint(url, upstream, None) == []
    [seen] = endpoint.seen
    assert seen.headers["x-api-key"] == "sk-real"
    assert seen.body["max_tokens"] == 1 and seen.body["model"]


async def test_probe_of_a_closed_port_and_of_a_401_fail_within_seconds() -> None:
    started = time.monotonic()
    upstream = Upstream(f"http://127.0.0.1:{closed_port()}", "api_key", "sk")
    async with ModelProxy(upstream) as url:
        with pytest.raises(ModelEndpointError, match="refused the connection"):
            await probe_endpoint(url, upstream, "claude-x")
    with FakeEndpoint(refuse=401) as endpoint:
        upstream = Upstream(endpoint.url, "api_key", "sk")
        async with ModelProxy(upstream) as url:
            with pytest.raises(ModelEndpointError, match="answered 401: the API key was refused"):
                await probe_endpoint(url, upstream, "claude-x")
    assert time.monotonic() - started < 5


def session_run(tmp_path: Path, runner: Any, logged: list[str]) -> orchestrator.Run:
    """A Run with only what :meth:`Run.session` touches filled in; its log lines in ``logged``."""

    class Lines(io.StringIO):
        def write(self, text: str) -> int:
            logged.extend(line.split(" ", 1)[1] for line in text.splitlines())
            return len(text)

    spec = AgentSpec(spec_file=tmp_path / "s.md", project_dir=tmp_path, target_branch="main")
    info = WorkspaceInfo(spec=spec, spec_slug="s", feature_branch="feature/s")
    return orchestrator.Run.create(
        files=WorkspaceFiles(tmp_path / "ws"),
        info=info,
        state=AgentState(),
        tracker=None,  # type: ignore[arg-type]  # sessions never touch it
        sessions=SessionConfig(project_dir=tmp_path, model=None),
        log=AgentLog(Lines()),
        project_env=ProjectEnv("PATH", None),
        session_runner=runner,
    )


async def test_a_refused_key_is_not_retried_and_reads_as_one_clean_line(tmp_path: Path) -> None:
    calls: list[str] = []
    logged: list[str] = []

    async def refused(label: str, *_: object) -> SessionResult:
        calls.append(label)
        raise ModelEndpointError(f"session {label} failed (HTTP 401): invalid x-api-key")

    run = session_run(tmp_path, refused, logged)
    with pytest.raises(ModelEndpointError) as raised:
        await run.session(
            "initializer", "initializer", spec="", section_list="", target_branch="", feedback=""
        )
    assert calls == ["initializer"]
    assert str(raised.value) == "session initializer failed (HTTP 401): invalid x-api-key"
    assert not any("attempt" in line for line in logged)


async def test_a_failing_session_is_retried_and_its_error_named_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_retries, "RETRY_DELAY_S", 0.01)
    logged: list[str] = []

    async def failing(label: str, *_: object) -> SessionResult:
        raise SessionError(f"session {label} failed (HTTP 500): boom")

    run = session_run(tmp_path, failing, logged)
    with pytest.raises(SessionError) as raised:
        await run.session(
            "coding #1", "initializer", spec="", section_list="", target_branch="", feedback=""
        )
    assert str(raised.value) == "session coding #1 failed (HTTP 500): boom (after 3 attempts)"
    retries = [line for line in logged if "boom" in line]
    assert retries == [
        "session coding #1 failed (HTTP 500): boom (attempt 1 of 3; again in 0.01 s)",
        "session coding #1 failed (HTTP 500): boom (attempt 2 of 3; again in 0.02 s)",
    ]

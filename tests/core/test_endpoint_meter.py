"""The endpoint's ledger: windows, refusals, and how its figures become a session's."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.core import orchestrator
from agent.core.endpoint_meter import EndpointMeter, EndpointSpend
from agent.core.endpoint_usage import Usage
from agent.core.log import AgentLog
from agent.core.policy.audit import read_counts, record_endpoint_refusal, status_line
from agent.core.project_env import ProjectEnv
from agent.core.session import SessionConfig, SessionResult, with_endpoint
from common.errors import ModelEndpointError
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.budget import Budgets
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from common.schemas.workspace import WorkspaceInfo

USAGE = Usage(
    input_tokens=100, output_tokens=10, cache_read_tokens=20, cache_creation_tokens=30, found=True
)


def meter(lines: list[str], counted: list[str], *, priced: bool = True) -> EndpointMeter:
    return EndpointMeter(priced=priced, log=lines.append, on_refusal=counted.append)


def test_a_request_is_admitted_only_inside_a_window_and_charged_to_it() -> None:
    lines: list[str] = []
    counted: list[str] = []
    ledger = meter(lines, counted)
    spend, refused = ledger.admit("POST", "/v1/messages?beta=true")
    assert spend is None and refused is not None and refused.status == 403
    with ledger.window("session coding-1") as window:
        spend, refused = ledger.admit("POST", "/v1/messages?beta=true")
        assert spend is window and refused is None
        cost = ledger.charge(window, USAGE, "claude-haiku-4-5", 200, "/v1/messages?beta=true")
    assert cost == pytest.approx((100 * 1 + 10 * 5 + 20 * 0.1 + 30 * 1.25) / 1e6)
    assert (window.requests, window.input_tokens, window.output_tokens) == (1, 150, 10)
    assert (window.cache_read_tokens, window.cache_creation_tokens) == (20, 30)
    assert ledger.refused == 1 and len(counted) == 1
    assert lines == [f"[endpoint] {counted[0]}"]
    assert "no session of this agent is running" in counted[0]


def test_the_embedded_model_is_counted_but_costs_nothing() -> None:
    ledger = meter([], [], priced=False)
    with ledger.window("session x") as window:
        assert ledger.charge(window, USAGE, "claude-opus-4-1", 200, "/v1/messages") == 0.0
    assert window.input_tokens == 150 and window.cost_usd == 0.0


def test_an_answer_without_usage_is_a_request_and_noted_unreadable() -> None:
    lines: list[str] = []
    ledger = meter(lines, [])
    with ledger.window("session x") as window:
        ledger.charge(window, Usage(), "claude-sonnet-4-5", 200, "/v1/messages?beta=true")
        ledger.charge(window, Usage(), "claude-sonnet-4-5", 200, "/v1/messages/count_tokens")
        ledger.charge(window, Usage(), "claude-sonnet-4-5", 529, "/v1/messages")
    assert (window.requests, window.unreadable) == (3, 1)
    assert lines == ["[endpoint] the answer to /v1/messages?beta=true had no usage"]


def test_windows_do_not_nest_and_the_last_is_handed_out_once() -> None:
    ledger = meter([], [])
    with ledger.window("session a"), pytest.raises(RuntimeError), ledger.window("session b"):
        pass
    assert ledger.open is None
    assert ledger.take_last("session b") is None  # the last was a's: not b's, and now gone
    with ledger.window("session c") as window:
        pass
    assert ledger.take_last("session c") is window
    assert ledger.take_last("session c") is None


async def test_settling_waits_for_requests_in_flight_and_says_when_it_gave_up() -> None:
    lines: list[str] = []
    ledger = meter(lines, [])
    with ledger.window("session x") as window:
        ledger.admit("POST", "/v1/messages")
        ledger.admit("POST", "/v1/messages")
    ledger.release(window)
    await ledger.settle(window, 0.05)
    assert window.in_flight == 1
    assert lines == [
        "[endpoint] 1 request(s) of session x still answering after 0.05 s: charged when they "
        "end, after the session's figures"
    ]
    ledger.release(window)
    await ledger.settle(window, 5)  # nothing in flight: at once
    assert len(lines) == 1


def figures(cost: float | None, tokens_in: int, tokens_out: int) -> SessionResult:
    return SessionResult(
        turns=2,
        cost_usd=cost,
        input_tokens=tokens_in,
        output_tokens=tokens_out,
        duration_ms=10,
        denials=0,
        touched=set(),
    )


def spent(cost: float, tokens_in: int, tokens_out: int, requests: int = 3) -> EndpointSpend:
    return EndpointSpend(
        "session s", requests, tokens_in, tokens_out, cache_read_tokens=5, cost_usd=cost
    )


@pytest.mark.parametrize(
    ("cli", "endpoint", "expected"),
    [
        # The model's own request: the endpoint saw more than the CLI reported.
        (figures(0.10, 1000, 100), spent(0.25, 1500, 180), (0.25, 1500, 180)),
        # A forged or higher CLI figure is kept: never less than either.
        (figures(0.40, 2000, 300), spent(0.25, 1500, 180), (0.40, 2000, 300)),
        # The CLI reported no cost at all.
        (figures(None, 0, 0), spent(0.05, 10, 1), (0.05, 10, 1)),
    ],
)
def test_a_sessions_figures_are_never_below_the_endpoints(
    cli: SessionResult, endpoint: EndpointSpend, expected: tuple[float, int, int]
) -> None:
    combined = with_endpoint(cli, endpoint)
    assert (combined.cost_usd, combined.input_tokens, combined.output_tokens) == expected
    assert combined.endpoint_requests == 3 and combined.cache_read_tokens == 5
    assert (combined.turns, combined.duration_ms) == (2, 10)


async def test_a_failed_session_still_pays_for_what_the_endpoint_forwarded(tmp_path: Path) -> None:
    ledger = meter([], [])

    async def billed_then_refused(label: str, *_: object) -> SessionResult:
        with ledger.window(f"session {label}") as window:
            ledger.charge(window, USAGE, "claude-sonnet-4-5", 200, "/v1/messages")
        raise ModelEndpointError(f"session {label} failed (HTTP 401): invalid x-api-key")

    spec = AgentSpec(spec_file=tmp_path / "s.md", project_dir=tmp_path, target_branch="main")
    (tmp_path / "ws").mkdir()
    run = orchestrator.Run(
        files=WorkspaceFiles(tmp_path / "ws"),
        info=WorkspaceInfo(spec=spec, spec_slug="s", feature_branch="feature/s"),
        state=AgentState(),
        tracker=None,  # type: ignore[arg-type]  # sessions never touch it
        sessions=SessionConfig(project_dir=tmp_path, model=None, meter=ledger),
        log=AgentLog(io.StringIO()),
        project_env=ProjectEnv("PATH", None),
        session_runner=billed_then_refused,
    )
    with pytest.raises(ModelEndpointError):
        await run.session(
            "coding-1",
            "initializer",
            expected_issue=4,
            spec="",
            section_list="",
            target_branch="",
            feedback="",
        )
    assert run.state.spend.tokens_in == 150 and run.state.spend.tokens_out == 10
    assert run.state.spend.cost_usd > 0 and run.state.spend.sessions == 0
    assert run.state.issue_spend[4].tokens_in == 150


def test_refusals_are_counted_in_the_audit_and_shown_by_status(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path / "ws")
    files.root.mkdir()
    assert status_line(read_counts(files)) == "policy: 0 allowed, 0 denied, 0 forgeries rejected"
    ledger = EndpointMeter(
        priced=False, on_refusal=lambda detail: record_endpoint_refusal(files, detail)
    )
    ledger.admit("GET", "/rt/x.sh")
    ledger.admit("POST", "/v1/messages")  # no session running
    assert read_counts(files).endpoint_refused == 2
    assert status_line(read_counts(files)).endswith(", 2 model endpoint requests refused")


def test_past_the_budget_left_for_the_session_every_request_is_refused() -> None:
    lines: list[str] = []
    counted: list[str] = []
    ledger = meter(lines, counted)
    big = Usage(input_tokens=100_000, found=True)  # $0.30 on Sonnet
    with ledger.window("session coding #1", limit_usd=0.50) as window:
        for _ in range(2):
            admitted, refused = ledger.admit("POST", "/v1/messages")
            assert admitted is window and refused is None
            ledger.charge(window, big, "claude-sonnet-4-5", 200, "/v1/messages")
            ledger.release(window)
        admitted, refused = ledger.admit("POST", "/v1/messages")
    assert admitted is None and refused is not None
    assert (refused.status, refused.error_type) == (400, "invalid_request_error")
    assert "cost budget is spent ($0.6000 of the $0.5000 left" in refused.message
    assert window.budget_spent and window.requests == 2
    assert counted == [] and lines == [f"[endpoint] session coding #1: {refused.message}"]


def test_the_budget_left_for_a_session_is_the_cost_budget_less_the_spend(tmp_path: Path) -> None:
    spec = AgentSpec(
        spec_file=tmp_path / "s.md",
        project_dir=tmp_path,
        target_branch="main",
        budgets=Budgets(cost_usd=1.0),
    )
    run = orchestrator.Run(
        files=WorkspaceFiles(tmp_path / "ws"),
        info=WorkspaceInfo(spec=spec, spec_slug="s", feature_branch="feature/s"),
        state=AgentState(spend=Spend(cost_usd=0.75)),
        tracker=None,  # type: ignore[arg-type]  # sessions never touch it
        sessions=SessionConfig(project_dir=tmp_path, model=None),
        log=AgentLog(io.StringIO()),
        project_env=ProjectEnv("PATH", None),
    )
    assert run.budgeted_sessions().cost_limit_usd == pytest.approx(0.25)
    run.state = AgentState(spend=Spend(cost_usd=3.0))
    assert run.budgeted_sessions().cost_limit_usd == 0.0
    unlimited = spec.model_copy(update={"budgets": Budgets()})
    run.info = WorkspaceInfo(spec=unlimited, spec_slug="s", feature_branch="feature/s")
    assert run.budgeted_sessions() is run.sessions

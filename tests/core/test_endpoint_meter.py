"""The endpoint's ledger: windows, refusals, and how its figures become a session's."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agent.core.endpoint.endpoint_meter import MAX_UNCLAIMED, EndpointMeter, EndpointSpend
from agent.core.endpoint.endpoint_usage import Usage
from agent.core.log import AgentLog
from agent.core.policy.audit import read_counts, record_endpoint_refusal, status_line
from agent.core.run import orchestrator
from agent.core.run.ledger import Ledger
from agent.core.run.run_state import StateStore
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig, with_endpoint
from common.errors import ModelEndpointError
from common.paths import WorkspaceFiles
from common.project_env import ProjectEnv
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
    run = orchestrator.Run.create(
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
    (tmp_path / "ws").mkdir()
    log = AgentLog(io.StringIO())
    store = StateStore(WorkspaceFiles(tmp_path / "ws"), AgentState(spend=Spend(cost_usd=0.75)), log)
    config = SessionConfig(project_dir=tmp_path, model=None)
    ledger = Ledger(store, log, Budgets(cost_usd=1.0))
    assert ledger.budgeted(config).cost_limit_usd == pytest.approx(0.25)
    store.state = AgentState(spend=Spend(cost_usd=3.0))
    assert ledger.budgeted(config).cost_limit_usd == 0.0
    store.state = AgentState(spend=Spend(cost_usd=3.0), budgets=Budgets(cost_usd=5.0))
    assert ledger.budgeted(config).cost_limit_usd == pytest.approx(2.0)  # raised by a person
    assert Ledger(store, log, Budgets()).budgeted(config) is not config  # the raised one holds
    unlimited = Ledger(StateStore(store.files, AgentState(), log), log, Budgets())
    assert unlimited.budgeted(config) is config


def test_each_entrance_is_charged_only_its_own_windows_requests() -> None:
    counted: list[str] = []
    ledger = meter([], counted)
    big = Usage(input_tokens=1000, output_tokens=100, found=True)
    with (
        ledger.window("endpoint probe") as shared,
        ledger.window("session coding #1", own_entrance=True) as first,
        ledger.window("session coding #2", own_entrance=True) as second,
    ):
        assert ledger.windows == (shared, first, second) and ledger.open is shared
        for via, usage, times in ((first, USAGE, 3), (second, big, 2), (None, USAGE, 1)):
            for _ in range(times):
                admitted, refused = ledger.admit("POST", "/v1/messages", via)
                assert refused is None and admitted is (via or shared)
                ledger.charge(admitted, usage, "claude-sonnet-4-5", 200, "/v1/messages")
                ledger.release(admitted)
    assert (first.requests, first.input_tokens, first.output_tokens) == (3, 450, 30)
    assert (second.requests, second.input_tokens, second.output_tokens) == (2, 2000, 200)
    assert (shared.requests, shared.input_tokens) == (1, 150)
    assert second.cost_usd == pytest.approx(2 * (1000 * 3 + 100 * 15) / 1e6)
    assert not ledger.windows and ledger.refused == 0 and counted == []


def test_a_closed_windows_entrance_refuses_its_late_requests_and_the_other_goes_on() -> None:
    lines: list[str] = []
    counted: list[str] = []
    ledger = meter(lines, counted)
    with ledger.window("session coding #2", own_entrance=True) as second:
        with ledger.window("session coding #1", own_entrance=True) as first:
            pass
        admitted, refused = ledger.admit("POST", "/v1/messages?beta=true", first)
        assert admitted is None and refused is not None and refused.status == 403
        assert "session coding #1 has ended" in refused.message
        assert ledger.admit("POST", "/v1/messages", second) == (second, None)
        ledger.release(second)
        # The shared entrance leads to no window: own-entrance windows are not its.
        assert ledger.admit("POST", "/v1/messages")[0] is None
        # A new window of the same label is not the old entrance's either.
        with ledger.window("session coding #1", own_entrance=True) as again:
            assert ledger.admit("POST", "/v1/messages", first)[0] is None
            assert ledger.admit("POST", "/v1/messages", again)[0] is again
    assert first.requests == 0 and ledger.refused == 3 and len(counted) == 3
    assert "no session of this agent is running" in counted[1]


def test_the_budget_limit_holds_per_window() -> None:
    lines: list[str] = []
    ledger = meter(lines, [])
    big = Usage(input_tokens=100_000, found=True)  # $0.30 on Sonnet
    with (
        ledger.window("session a", limit_usd=0.25, own_entrance=True) as tight,
        ledger.window("session b", limit_usd=1.00, own_entrance=True) as loose,
        ledger.window("session c", own_entrance=True) as unlimited,
    ):
        for window in (tight, loose, unlimited):
            admitted, _refused = ledger.admit("POST", "/v1/messages", window)
            assert admitted is window
            ledger.charge(window, big, "claude-sonnet-4-5", 200, "/v1/messages")
            ledger.release(window)
        refusals = [ledger.admit("POST", "/v1/messages", w)[1] for w in (tight, loose, unlimited)]
    assert refusals[0] is not None and refusals[0].status == 400
    assert refusals[1:] == [None, None]
    assert (tight.budget_spent, loose.budget_spent, unlimited.budget_spent) == (True, False, False)
    assert lines == [f"[endpoint] session a: {refusals[0].message}"]


def test_the_figures_of_each_closed_window_are_handed_out_once_by_label() -> None:
    ledger = meter([], [])
    with ledger.window("session a", own_entrance=True) as first:
        with ledger.window("session b", own_entrance=True) as second:
            assert ledger.take_last("session b") is None  # still open
        with ledger.window("session c", own_entrance=True):
            pass
    assert ledger.take_last("session b") is second  # though a and c closed after it
    assert ledger.take_last("session a") is first
    assert ledger.take_last("session a") is None and ledger.take_last("session b") is None


def test_open_windows_never_share_a_label_and_the_shared_entrance_has_one() -> None:
    ledger = meter([], [])
    with ledger.window("session a", own_entrance=True):
        with pytest.raises(RuntimeError, match="open already"), ledger.window("session a"):
            pass
        with (
            ledger.window("session b"),
            pytest.raises(RuntimeError, match="inside"),
            ledger.window("session c"),
        ):
            pass
        assert [w.label for w in ledger.windows] == ["session a"]


def test_closed_windows_nobody_claims_are_kept_only_up_to_a_bound() -> None:
    ledger = meter([], [])
    for number in range(MAX_UNCLAIMED + 5):
        with ledger.window(f"session {number}", own_entrance=True):
            pass
    assert ledger.take_last("session 0") is None
    assert ledger.take_last(f"session {MAX_UNCLAIMED + 4}") is not None


async def test_settling_one_window_does_not_wait_for_the_others_requests() -> None:
    lines: list[str] = []
    ledger = meter(lines, [])
    with (
        ledger.window("session a", own_entrance=True) as first,
        ledger.window("session b", own_entrance=True) as second,
    ):
        ledger.admit("POST", "/v1/messages", first)
        ledger.admit("POST", "/v1/messages", second)
        ledger.release(first)
    await ledger.settle(first, 5)  # at once: only b's request is still in flight
    assert (first.in_flight, second.in_flight) == (0, 1) and lines == []

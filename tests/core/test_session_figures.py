"""A session's figures: every billed kind of input token, and cost 0 on the embedded model."""

from __future__ import annotations

from claude_agent_sdk import ResultMessage

from agent.core.session.session import session_figures


def result(cost: float | None, usage: dict[str, int] | None) -> ResultMessage:
    return ResultMessage(
        subtype="success",
        duration_ms=120,
        duration_api_ms=100,
        is_error=False,
        num_turns=3,
        session_id="s",
        total_cost_usd=cost,
        usage=usage,
        permission_denials=[{"tool_name": "Bash"}],
    )


def test_input_tokens_include_cache_reads_and_cache_creation() -> None:
    usage = {
        "input_tokens": 27_629,
        "cache_read_input_tokens": 43_325,
        "cache_creation_input_tokens": 16_797,
        "output_tokens": 779,
    }
    figures = session_figures(result(0.17, usage), {"a.py"}, local_model=False)
    assert figures.input_tokens == 27_629 + 43_325 + 16_797
    assert figures.cache_read_tokens == 43_325
    assert figures.cache_creation_tokens == 16_797
    assert figures.output_tokens == 779
    assert figures.cost_usd == 0.17
    assert (figures.turns, figures.denials, figures.touched) == (3, 1, {"a.py"})


def test_the_embedded_model_costs_nothing_whatever_the_cli_prices() -> None:
    figures = session_figures(result(0.1677, {"input_tokens": 10}), set(), local_model=True)
    assert figures.cost_usd == 0.0
    assert figures.input_tokens == 10


def test_missing_usage_and_cost_stay_zero_and_unknown() -> None:
    figures = session_figures(result(None, None), set(), local_model=False)
    assert (figures.input_tokens, figures.output_tokens, figures.cost_usd) == (0, 0, None)

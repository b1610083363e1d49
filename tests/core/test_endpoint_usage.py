"""Tokens and cost of an answer, read at the endpoint (SSE stream or JSON body)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.core.endpoint.endpoint_usage import Usage, read_usage, requested_model
from agent.core.endpoint.pricing import DEAREST, cost_usd, price_of
from agent.model import wire
from agent.model.playbook import Reply, TextBlock


def sse(*events: dict[str, Any]) -> bytes:
    return b"".join(
        b"event: %s\r\ndata: %s\r\n\r\n" % (e["type"].encode(), json.dumps(e).encode())
        for e in events
    )


START = {
    "type": "message_start",
    "message": {
        "model": "claude-sonnet-4-5-20250929",
        "usage": {
            "input_tokens": 1000,
            "cache_read_input_tokens": 200,
            "cache_creation_input_tokens": 300,
            "cache_creation": {"ephemeral_5m_input_tokens": 200, "ephemeral_1h_input_tokens": 100},
            "output_tokens": 1,
        },
    },
}


def test_a_stream_takes_input_from_message_start_and_output_from_the_last_delta() -> None:
    answer = sse(
        START,
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}},
        {"type": "message_delta", "delta": {"stop_reason": None}, "usage": {"output_tokens": 20}},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 57},
        },
        {"type": "message_stop"},
    )
    usage = read_usage(answer, "text/event-stream; charset=utf-8")
    assert usage == Usage(
        input_tokens=1000,
        output_tokens=57,
        cache_read_tokens=200,
        cache_creation_tokens=300,
        cache_creation_1h_tokens=100,
        model="claude-sonnet-4-5-20250929",
        found=True,
    )
    assert usage.billed_input == 1500


def test_a_json_answer_carries_its_usage_whole() -> None:
    body = wire.message_json(Reply(content=[TextBlock(text="hello")]), "claude-haiku-4-5", 321)
    usage = read_usage(json.dumps(body).encode(), "application/json")
    assert (usage.input_tokens, usage.model, usage.found) == (321, "claude-haiku-4-5", True)
    assert usage.output_tokens > 0


def test_the_embedded_models_stream_is_read() -> None:
    events = wire.sse_events(Reply(content=[TextBlock(text="hello there")]), "m", 42)
    usage = read_usage(wire.encode_sse(events), "text/event-stream")
    assert (usage.input_tokens, usage.found) == (42, True)
    assert usage.output_tokens > 0


@pytest.mark.parametrize(
    ("answer", "content_type"),
    [
        (b"", "application/json"),
        (b"not json", "application/json"),
        (b"[1, 2]", "application/json"),
        (b'{"input_tokens": 12}', "application/json"),  # count_tokens: free, no usage
        (b'{"type": "error", "error": {"type": "overloaded_error"}}', "application/json"),
        (b"data: {broken\n\n", "text/event-stream"),
        (b"\x1f\x8b\x08compressed", "text/event-stream"),
    ],
)
def test_an_answer_without_usage_has_none(answer: bytes, content_type: str) -> None:
    assert read_usage(answer, content_type) == Usage()


def test_hostile_counts_are_never_negative_or_other_types() -> None:
    body = {"usage": {"input_tokens": -5, "output_tokens": "9", "cache_read_input_tokens": True}}
    usage = read_usage(json.dumps(body).encode(), "application/json")
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (0, 0, 0)


def test_the_requested_model_is_read_from_the_body() -> None:
    assert requested_model(b'{"model": "claude-opus-4-5", "messages": []}') == "claude-opus-4-5"
    assert requested_model(b"[]") == "" and requested_model(b"\xff") == ""


@pytest.mark.parametrize(
    ("model", "input_usd", "output_usd"),
    [
        ("claude-sonnet-4-5-20250929", 3, 15),
        ("claude-sonnet-4-20250514", 3, 15),
        ("claude-sonnet-4-6", 3, 15),
        ("claude-opus-4-5-20251101", 5, 25),
        ("claude-opus-4-1-20250805", 15, 75),
        ("claude-opus-4-20250514", 15, 75),
        ("claude-haiku-4-5-20251001", 1, 5),
        ("claude-3-5-haiku-latest", 0.8, 4),
        ("claude-3-haiku-20240307", 0.25, 1.25),
        ("anthropic.claude-opus-4-1-20250805-v1:0", 15, 75),
        ("claude-sonnet-4-5[1m]", 3, 15),
    ],
)
def test_the_price_table_knows_the_models(model: str, input_usd: float, output_usd: float) -> None:
    price = price_of(model)
    assert price is not None
    assert (price.rates.input, price.rates.output) == (input_usd, output_usd)


def test_cost_prices_each_kind_of_token_at_its_rate() -> None:
    usage = Usage(
        input_tokens=100_000,
        output_tokens=10_000,
        cache_read_tokens=50_000,
        cache_creation_tokens=30_000,
        cache_creation_1h_tokens=10_000,
        found=True,
    )
    # Sonnet 4.5: $3 in, $15 out, $0.30 hits, $3.75 5-minute writes, $6 1-hour writes.
    expected = (100_000 * 3 + 10_000 * 15 + 50_000 * 0.3 + 20_000 * 3.75 + 10_000 * 6) / 1e6
    assert cost_usd(usage, "claude-sonnet-4-5") == pytest.approx(expected)


def test_a_long_prompt_pays_the_long_context_rate() -> None:
    usage = Usage(input_tokens=250_000, output_tokens=1000, found=True)
    assert cost_usd(usage, "claude-sonnet-4-5") == pytest.approx(0.25 * 6 + 0.001 * 22.5)


def test_an_unknown_model_is_never_free() -> None:
    usage = Usage(input_tokens=1_000_000, found=True)
    assert price_of("my-gateway-model") is None
    assert cost_usd(usage, "my-gateway-model") == pytest.approx(DEAREST.rates.input)
    assert cost_usd(usage, "") == pytest.approx(DEAREST.rates.input)

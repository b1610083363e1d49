"""What an answer of the Messages API costs, from its tokens: the harness's own price table.

Why: the CLI prices its own requests (``total_cost_usd`` in its result message), but
requests the model's commands send through the relay never reach that figure. The
endpoint side prices every answer it forwards with this table; a session's cost is
the larger of that sum and the CLI's own figure (:mod:`agent.core.session.session`).

Source: Anthropic's price list, https://platform.claude.com/docs/en/about-claude/pricing
("Model pricing": base input, 5-minute and 1-hour cache writes, cache hits, output;
"Long context pricing"), as stored in November 2026. Rows the page did not list in
full take its rules: 5-minute cache writes 1.25x input, 1-hour writes 2x, hits 0.1x
(0.05x and 0.025x where the page says so). A model no row matches is priced at the
dearest row: an unknown name must never make a request free. The embedded playbook
model costs nothing (the caller does not price it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.core.endpoint.endpoint_usage import Usage

_PER_TOKEN = 1_000_000


@dataclass(frozen=True)
class Rates:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write_5m: float
    cache_write_1h: float
    cache_read: float


@dataclass(frozen=True)
class Price:
    """A model's rates, and a dearer tier for prompts longer than ``long_after`` tokens."""

    rates: Rates
    long_after: int | None = None
    long_rates: Rates | None = None


def _standard(input_usd: float, output_usd: float, read_factor: float = 0.1) -> Rates:
    return Rates(input_usd, output_usd, input_usd * 1.25, input_usd * 2, input_usd * read_factor)


_SONNET_4 = Price(_standard(3, 15), long_after=200_000, long_rates=_standard(6, 22.5))
"""Sonnet 4 and 4.5 with a prompt over 200K tokens (the 1M context) pay the long rate."""

PRICES: tuple[tuple[str, Price], ...] = (
    (r"claude-(fable|mythos)-5-1", Price(_standard(10, 50, 0.025))),
    (r"claude-(fable|mythos)-5", Price(_standard(10, 50))),
    (r"claude-opus-5-5", Price(_standard(4, 20, 0.05))),
    (r"claude-opus-(5|4-[5-9])", Price(_standard(5, 25))),
    (r"claude-opus-4|claude-3-opus", Price(_standard(15, 75))),
    (r"claude-sonnet-5-5", Price(_standard(2, 10, 0.05))),
    (r"claude-sonnet-5", Price(_standard(2, 10))),
    (r"claude-sonnet-4-[6-9]", Price(_standard(3, 15))),
    (r"claude-sonnet-4", _SONNET_4),
    (r"claude-3-[57]-sonnet", Price(_standard(3, 15))),
    (
        r"claude-haiku-5-5",
        Price(_standard(0.10, 0.50), long_after=100_000, long_rates=_standard(0.50, 2.50)),
    ),
    (r"claude-haiku-4", Price(_standard(1, 5))),
    (r"claude-3-5-haiku", Price(_standard(0.80, 4))),
    (r"claude-3-haiku", Price(Rates(0.25, 1.25, 0.30, 0.50, 0.03))),
)
"""First match wins (a name may carry a date, ``[1m]``, or a cloud's prefix)."""
DEAREST = Price(_standard(15, 75))
"""For a model no row matches: the dearest input and output rates of the table."""


def price_of(model: str) -> Price | None:
    """The row for ``model`` (``None`` when none matches)."""
    name = model.lower()
    for pattern, price in PRICES:
        if re.search(rf"(?:{pattern})(?![0-9])", name):
            return price
    return None


def cost_usd(usage: Usage, model: str) -> float:
    """The cost of one answer's tokens, in US dollars (unknown models at :data:`DEAREST`)."""
    price = price_of(model) or DEAREST
    rates = price.rates
    long_prompt = price.long_after is not None and usage.billed_input > price.long_after
    if long_prompt and price.long_rates is not None:
        rates = price.long_rates
    five_minute = usage.cache_creation_tokens - usage.cache_creation_1h_tokens
    dollars = (
        usage.input_tokens * rates.input
        + usage.output_tokens * rates.output
        + usage.cache_read_tokens * rates.cache_read
        + five_minute * rates.cache_write_5m
        + usage.cache_creation_1h_tokens * rates.cache_write_1h
    )
    return dollars / _PER_TOKEN

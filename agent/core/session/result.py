"""What a session leaves: its figures and the project files the model wrote.

Its own module, below :mod:`.session` and :mod:`.trace_session`, which both use it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from common.schemas.browser_check import BrowserCall


@dataclass
class SessionResult:
    """The session's figures and the project files the model wrote."""

    turns: int
    cost_usd: float | None
    input_tokens: int
    """All input tokens: uncached, read from the cache and written to it (all are billed)."""
    output_tokens: int
    duration_ms: int
    denials: int
    touched: set[str]
    cache_read_tokens: int = 0
    """Part of ``input_tokens`` read from the prompt cache."""
    cache_creation_tokens: int = 0
    """Part of ``input_tokens`` written to the prompt cache."""
    endpoint_requests: int = 0
    """Requests the model endpoint forwarded for the session (the CLI's and any other)."""
    browser_calls: list[BrowserCall] = field(default_factory=list)
    """The browser calls of the session that succeeded, for the regression replay."""
    limit: str | None = None
    """The limit the harness ended the session at, as the next session is told (its line,
    and for the disk budget what takes the space); ``None``: it ended on its own."""

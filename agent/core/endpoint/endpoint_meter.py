"""The endpoint's ledger: which session a request belongs to, and what it spent.

Why: the model's commands reach the model endpoint through the same relay as the
CLI and cannot be told apart from it. So the endpoint itself opens only while one
of the agent's sessions runs (a *window*), and every answer it forwards in that
window is charged to that session: tokens from the answer's ``usage``, dollars
from :mod:`agent.core.endpoint.pricing`. A session's figures are then at least this sum
(:func:`agent.core.session.session.run_session`), so an extra request is never free. A
request with no window open (between sessions, while a checkpoint waits) is
refused, logged and counted.

Several windows may be open at once (parallel issues, each session in its own
sandbox). A request is charged to the window of the *entrance* it came in by, which
the model cannot choose: the shared entrance (the proxy's TCP port, reached through
the one bridge of a single sandbox) leads to the one window opened without an
entrance of its own, exactly as when one session runs at a time; a window opened
with ``own_entrance`` is reached only through the Unix socket the proxy serves for it
(:meth:`agent.core.endpoint.model_proxy.ModelProxy.entrance`), bound into that session's
sandbox alone. A request on an entrance whose window has closed is refused.

The meter lives in the agent's event loop (the proxy's connections and the sessions
share it), so it needs no lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from agent.core.endpoint import endpoint_rules
from agent.core.endpoint.endpoint_rules import Refusal
from agent.core.endpoint.endpoint_usage import Usage
from agent.core.endpoint.pricing import cost_usd, price_of
from agent.core.trace.trace import TraceSession

Note = Callable[[str], None]
SETTLE_TIMEOUT_S = 60.0
"""How long a session's end waits for answers still streaming to requests it made (the
CLI is gone, but a request of the model's commands may still be answered)."""
MAX_UNCLAIMED = 64
"""Closed windows kept for :meth:`EndpointMeter.take_last` (a successful session's is never
claimed): enough for every session running at once, and bounded over a long run."""


@dataclass
class EndpointSpend:
    """What the endpoint forwarded for one window (a session, or the harness's probe)."""

    label: str
    requests: int = 0
    """Requests forwarded (count_tokens ones included)."""
    input_tokens: int = 0
    """Every billed input token: uncached, cache read and cache write."""
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    cost_usd: float = 0.0
    unreadable: int = 0
    """Successful answers whose usage could not be read (they count as requests)."""
    limit_usd: float | None = None
    """What the run's cost budget had left for this window (``None``: no limit)."""
    budget_spent: bool = False
    """A request was refused because ``limit_usd`` was reached."""
    own_entrance: bool = False
    """Reached only through an entrance of its own, never through the shared one."""
    in_flight: int = 0
    """Requests admitted and not charged yet."""
    trace_session: TraceSession | None = None
    """The session's handle in the trace, whose number and request count its exchanges
    take (``None``: no session's, as the endpoint probe)."""
    idle: asyncio.Event = field(default_factory=asyncio.Event, repr=False, compare=False)
    """Set while nothing is in flight."""

    def __post_init__(self) -> None:
        self.idle.set()

    def add(self, usage: Usage, cost: float) -> None:
        self.input_tokens += usage.billed_input
        self.output_tokens += usage.output_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cache_creation_tokens += usage.cache_creation_tokens
        self.cost_usd = round(self.cost_usd + cost, 6)

    def line(self) -> str:
        """One line for the agent log."""
        unread = f", {self.unreadable} unreadable" if self.unreadable else ""
        return (
            f"{self.requests} request(s){unread}, {self.input_tokens} in "
            f"({self.cache_read_tokens} cache read, {self.cache_creation_tokens} cache write) / "
            f"{self.output_tokens} out, ${self.cost_usd:.4f}"
        )


class EndpointMeter:
    """Opens the endpoint for its windows and charges each answer to one of them.

    ``priced`` is false for the embedded model (its answers cost nothing). ``log``
    gets every refusal and unreadable answer; ``on_refusal`` counts refusals (the
    audit).
    """

    def __init__(
        self, *, priced: bool, log: Note | None = None, on_refusal: Note | None = None
    ) -> None:
        self.priced = priced
        self._log = log
        self._on_refusal = on_refusal
        self.open: EndpointSpend | None = None
        """The window the shared entrance leads to (at most one)."""
        self._windows: dict[str, EndpointSpend] = {}
        """Every open window, by label (the shared one too)."""
        self._closed: dict[str, EndpointSpend] = {}
        """Windows closed and not handed out yet, by label, oldest first (for the figures
        of a session that failed)."""
        self.refused = 0

    @property
    def windows(self) -> tuple[EndpointSpend, ...]:
        """The open windows, in the order they opened."""
        return tuple(self._windows.values())

    @contextlib.contextmanager
    def window(
        self,
        label: str,
        limit_usd: float | None = None,
        *,
        own_entrance: bool = False,
        trace_session: TraceSession | None = None,
    ) -> Iterator[EndpointSpend]:
        """Open the endpoint for ``label`` until the block ends; yields its live figures.

        Without ``own_entrance`` the window is the shared entrance's, and only one such
        window is open at a time (as when one session runs at a time); with it, the
        caller serves it an entrance of its own. Two open windows never share a label:
        the label is what a failed session's figures are found by.

        Once the window's cost reaches ``limit_usd``, further requests are refused: the
        model's own requests cannot spend past the budget within a session either.
        ``trace_session``: the session the window's exchanges are traced as.
        """
        if label in self._windows:
            raise RuntimeError(f"endpoint window {label!r} is open already")
        if not own_entrance and self.open is not None:
            raise RuntimeError(f"endpoint window {label!r} inside {self.open.label!r}")
        spend = EndpointSpend(
            label, limit_usd=limit_usd, own_entrance=own_entrance, trace_session=trace_session
        )
        self._closed.pop(label, None)  # an older window of that label is nobody's now
        self._windows[label] = spend
        if not own_entrance:
            self.open = spend
        try:
            yield spend
        finally:
            del self._windows[label]
            if self.open is spend:
                self.open = None
            self._closed[label] = spend
            while len(self._closed) > MAX_UNCLAIMED:
                del self._closed[next(iter(self._closed))]

    def is_open(self, spend: EndpointSpend) -> bool:
        """Whether ``spend``'s window is still open (not merely one of the same label)."""
        return self._windows.get(spend.label) is spend

    def take_last(self, label: str) -> EndpointSpend | None:
        """``label``'s window closed last, handed out once (so charged once); ``None`` when
        it is still open, was handed out already, or a newer window of that label opened."""
        return self._closed.pop(label, None)

    def admit(
        self, method: str, target: str, via: EndpointSpend | None = None
    ) -> tuple[EndpointSpend | None, Refusal | None]:
        """The window a request is charged to, or why it is refused (logged and counted).

        ``via`` is the window whose own entrance the request came in by; ``None``: the
        shared entrance, which leads to :attr:`open`.
        """
        refused = endpoint_rules.refusal(method, target)
        window = self.open if via is None else via if self.is_open(via) else None
        if refused is None and window is None:
            if via is None:
                refused = endpoint_rules.closed(method, target)
            else:
                refused = endpoint_rules.ended(via.label, method, target)
        if refused is not None:
            self.refuse(refused)
            return None, refused
        assert window is not None
        limit = window.limit_usd
        if limit is not None and window.cost_usd >= limit:
            window.budget_spent = True
            refused = endpoint_rules.budget_spent(window.cost_usd, limit)
            self._note(f"[endpoint] {window.label}: {refused.message}")
            return None, refused
        window.in_flight += 1
        window.idle.clear()
        return window, None

    def release(self, spend: EndpointSpend) -> None:
        """A request admitted to ``spend`` is over (charged, or failed before an answer)."""
        spend.in_flight -= 1
        if spend.in_flight <= 0:
            spend.idle.set()

    async def settle(self, spend: EndpointSpend, timeout_s: float = SETTLE_TIMEOUT_S) -> None:
        """Wait (at most ``timeout_s``) until every request admitted to ``spend`` is charged."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(spend.idle.wait(), timeout_s)
        if spend.in_flight > 0:
            self._note(
                f"[endpoint] {spend.in_flight} request(s) of {spend.label} still answering after "
                f"{timeout_s:g} s: charged when they end, after the session's figures"
            )

    def refuse(self, refused: Refusal) -> None:
        """Log and count one refusal."""
        self.refused += 1
        detail = f"model endpoint refused a request ({refused.status}): {refused.message}"
        if self._log is not None:
            self._log(f"[endpoint] {detail}")
        if self._on_refusal is not None:
            self._on_refusal(detail)

    def charge(
        self, spend: EndpointSpend, usage: Usage, requested: str, status: int, target: str
    ) -> float:
        """Charge one forwarded answer to ``spend``; its cost (0 unpriced)."""
        spend.requests += 1
        model = usage.model or requested
        is_messages = target.partition("?")[0] == "/v1/messages"  # count_tokens is free
        if is_messages and 200 <= status < 300 and not usage.found:
            spend.unreadable += 1
            self._note(f"[endpoint] the answer to {endpoint_rules.shown(target)} had no usage")
        cost = cost_usd(usage, model) if self.priced else 0.0
        if self.priced and usage.found and price_of(model) is None:
            self._note(f"[endpoint] no price for model {endpoint_rules.shown(model)}: dearest rate")
        spend.add(usage, cost)
        return cost

    def _note(self, line: str) -> None:
        if self._log is not None:
            self._log(line)

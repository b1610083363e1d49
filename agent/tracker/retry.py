"""When and how long to wait before sending a GitLab request again.

python-gitlab's own retries are off (they re-send POSTs blindly: a POST that GitLab
completed but answered with 502 created two identical issues). Here a failure is
classified once, at the edge, into a :class:`GitLabApiError` that says whether it is
worth another attempt and whether the request may have been carried out anyway
(``ambiguous``): before a creation is sent again, the caller looks for what a lost
answer may have created.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal, TypeVar

from common.errors import TrackerError

T = TypeVar("T")

FailureKind = Literal[
    "rate_limited",  # 429: GitLab did not carry the request out
    "server_error",  # 5xx: it may or may not have
    "timeout",  # no answer in time: it may or may not have
    "connection",  # refused, reset or closed without an answer
    "auth",  # 401
    "forbidden",  # 403
    "not_found",  # 404
    "conflict",  # 409
    "rejected",  # any other 4xx
    "invalid",  # an answer that is not what the API documents
]

#: Failures worth another attempt.
TRANSIENT: frozenset[FailureKind] = frozenset(
    {"rate_limited", "server_error", "timeout", "connection", "invalid"}
)
#: Failures after which the request may have been carried out all the same.
AMBIGUOUS: frozenset[FailureKind] = frozenset({"server_error", "timeout", "connection", "invalid"})


class GitLabApiError(TrackerError):
    """A GitLab request failed; the message is one line a person can act on."""

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.status = status
        self.retry_after = retry_after
        self.detail = detail
        """GitLab's own error text (``message`` or ``error`` of the body), when there was one."""

    @property
    def transient(self) -> bool:
        return self.kind in TRANSIENT

    @property
    def ambiguous(self) -> bool:
        return self.kind in AMBIGUOUS


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's ``Retry-After`` wins (up to a cap)."""

    attempts: int = 8
    """Tries in all, the first included."""
    base_delay: float = 0.5
    max_delay: float = 15.0
    max_retry_after: float = 120.0
    """A longer ``Retry-After`` is not waited for: the request fails instead."""
    settle_window: float = 45.0
    """How long a write whose answer was lost may still land: after an ambiguous failure
    it is looked for, with backoff, this long before it is sent again."""

    def delay(self, retry: int, failure: GitLabApiError) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        if failure.retry_after is not None:
            return max(0.0, failure.retry_after)
        ceiling = min(self.max_delay, self.base_delay * 2.0**retry)
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds: either delta-seconds or an HTTP date (RFC 9110)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


RetryHook = Callable[[GitLabApiError, int, float], None]


async def settle(recover: Callable[[], Awaitable[T | None]], policy: RetryPolicy) -> T | None:
    """Look for what an unanswered write did, again and again, until the settle window ends.

    A write held past the client's timeout may land seconds later (the server still
    works on it): one look right after the failure finds nothing, and sending the write
    again then makes it twice. So the look is repeated with backoff; only when the
    window has passed with nothing found is the write taken as not done.
    """
    deadline = asyncio.get_running_loop().time() + policy.settle_window
    pause = policy.base_delay
    while True:
        found = await recover()
        if found is not None:
            return found
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            return None
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, policy.max_delay)


async def retrying(
    call: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    on_retry: RetryHook,
    recover: Callable[[], Awaitable[T | None]] | None = None,
) -> T:
    """Await ``call()`` until it succeeds, a failure is permanent, or attempts run out.

    Args:
        call: one attempt; raises :class:`GitLabApiError`.
        policy: attempts and delays.
        on_retry: told about each retry (failure, retry number, delay) before the wait.
        recover: for creations: after an ambiguous failure (and the wait), looks for
            what the failed attempt may have created, for ``policy.settle_window``
            (:func:`settle`); what it finds is returned instead of sending the creation
            again.

    Raises:
        GitLabApiError: a permanent failure, or the last transient one, saying how
            many attempts were made.
    """
    for attempt in range(1, policy.attempts + 1):
        try:
            return await call()
        except GitLabApiError as failure:
            if not failure.transient:
                raise
            if attempt == policy.attempts or (
                failure.retry_after is not None and failure.retry_after > policy.max_retry_after
            ):
                raise GitLabApiError(
                    failure.kind,
                    f"{failure} (gave up after {attempt} attempt{'s' if attempt > 1 else ''})",
                    status=failure.status,
                    detail=failure.detail,
                ) from failure
            wait = policy.delay(attempt - 1, failure)
            on_retry(failure, attempt, wait)
            await asyncio.sleep(wait)
            if recover is not None and failure.ambiguous:
                found = await settle(recover, policy)
                if found is not None:
                    return found
    raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

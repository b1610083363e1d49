"""Requests through :mod:`agent.tracker.retry`: counted, logged, and creations made once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from agent.tracker.gitlab.client import Client
from agent.tracker.retry import GitLabApiError, RetryPolicy, retrying
from common.schemas.gitlab_milestone import GitLabApiStats

T = TypeVar("T")
Log = Callable[[str], None]


class Calls:
    """Runs blocking python-gitlab calls in worker threads, with retries and figures."""

    def __init__(
        self,
        client: Client,
        policy: RetryPolicy,
        verify_policy: RetryPolicy,
        stats: GitLabApiStats,
        log: Log,
    ) -> None:
        self.client = client
        self.policy = policy
        self.verify_policy = verify_policy
        self.stats = stats
        self.log = log

    async def get(self, what: str, call: Callable[[], T], *, verify: bool = False) -> T:
        """A request that can be sent again as it is (a GET, or a PUT of the same data).

        ``verify`` uses the shorter policy of project_verification (an unreachable host
        is reported in seconds).
        """
        policy = self.verify_policy if verify else self.policy
        return await retrying(lambda: self._attempt(what, call), policy, on_retry=self._retried)

    async def create(
        self,
        what: str,
        create: Callable[[], T],
        find: Callable[[], T | None],
        *,
        duplicate: str | None = None,
    ) -> T:
        """A creation: sent again only after ``find`` shows that the failed one made nothing.

        Args:
            what: the request, for messages ("create issue 'X'").
            create: the POST.
            find: looks for what ``create`` makes (by marker, title or branch).
            duplicate: text of GitLab's 400/409 error that means "already exists";
                then what ``find`` returns is the answer.
        """

        async def recover() -> T | None:
            found = await self.get(f"look for what '{what}' created", find)
            if found is not None:
                self.stats.recovered += 1
                self.log(f"GitLab: {what}: done although the answer was lost; not sent again")
            return found

        try:
            return await retrying(
                lambda: self._attempt(what, create),
                self.policy,
                on_retry=self._retried,
                recover=recover,
            )
        except GitLabApiError as e:
            if duplicate is None or e.status not in (400, 409) or duplicate not in e.detail:
                raise
            found = await self.get(f"look for what '{what}' found existing", find)
            if found is None:
                raise
            self.stats.already_existed += 1
            self.log(f"GitLab: {what}: it already exists ({e.detail})")
            return found

    async def _attempt(self, what: str, call: Callable[[], T]) -> T:
        gl = self.client.gl
        before = gl.sent
        try:
            return await asyncio.to_thread(self.client.run, what, call)
        except GitLabApiError as failure:
            failed = self.stats.failed
            failed[failure.kind] = failed.get(failure.kind, 0) + 1
            raise
        finally:
            self.stats.requests += gl.sent - before

    def _retried(self, failure: GitLabApiError, attempt: int, wait: float) -> None:
        self.stats.retries += 1
        self.log(f"{failure}; retry {attempt} in {wait:.1f} s")

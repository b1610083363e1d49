"""python-gitlab, sending each request once, and its failures as one-line errors.

:meth:`Client.run` is called in a worker thread; whatever python-gitlab or requests
raise leaves it as a :class:`GitLabApiError` that says whether another attempt is
worth it. The token never appears in a message.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import gitlab
import requests

from agent.tracker.gitlab.records import GitLabSettings
from agent.tracker.push import redact
from agent.tracker.retry import FailureKind, GitLabApiError, parse_retry_after

T = TypeVar("T")

_LOST = ("closed the connection without an answer", "reset the connection")
_REASONS = (
    ("Connection refused", "connection refused"),
    ("Name or service not known", "unknown host"),
    ("nodename nor servname", "unknown host"),
    ("Temporary failure in name resolution", "name resolution failed"),
    ("RemoteDisconnected", _LOST[0]),
    ("Connection aborted", _LOST[0]),
    ("Connection reset", _LOST[1]),
    ("CERTIFICATE_VERIFY_FAILED", "TLS certificate not trusted"),
)


class _SingleShotGitlab(gitlab.Gitlab):
    """python-gitlab that sends each request once (no 429 or transient retries) and counts."""

    sent = 0

    def http_request(self, verb: str, path: str, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["obey_rate_limit"] = False
        kwargs["retry_transient_errors"] = False
        self.sent += 1
        return super().http_request(verb, path, *args, **kwargs)


class Client:
    """The python-gitlab client of one GitLab, with the settings' timeout."""

    def __init__(self, settings: GitLabSettings) -> None:
        self.settings = settings
        self._local = threading.local()
        session = requests.Session()
        session.hooks["response"].append(self._remember)
        self.gl = _SingleShotGitlab(
            settings.api_url.removesuffix("/").removesuffix("/api/v4"),
            private_token=settings.token,
            timeout=settings.timeout,
            retry_transient_errors=False,
            session=session,
            per_page=100,
            user_agent="coding-harness",
        )

    def _remember(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        """Keep a 429's ``Retry-After``: python-gitlab's exceptions do not carry headers."""
        if response.status_code == 429:
            self._local.retry_after = response.headers.get("Retry-After")

    def run(self, what: str, call: Callable[[], T]) -> T:
        """``call()`` in this (worker) thread; failures become :class:`GitLabApiError`."""
        self._local.retry_after = None
        try:
            return call()
        except (gitlab.exceptions.GitlabError, requests.exceptions.RequestException) as e:
            retry_after = parse_retry_after(getattr(self._local, "retry_after", None))
            raise self.classify(e, what, retry_after) from e

    def current_user(self) -> dict[str, Any]:
        return _dict(self.gl.http_get("/user"))

    def token_self(self) -> dict[str, Any]:
        """The token's own record (its ``scopes``), GitLab 15.5 and later."""
        return _dict(self.gl.http_get("/personal_access_tokens/self"))

    def project(self, path: str) -> dict[str, Any]:
        found: dict[str, Any] = self.gl.projects.get(path).asdict()
        return found

    def classify(self, e: Exception, what: str, retry_after: float | None) -> GitLabApiError:
        """One line for a failed request ``what`` (a verb phrase: "create issue 'X'")."""
        settings = self.settings

        def fail(
            kind: FailureKind, text: str, status: int | None = None, detail: str = ""
        ) -> GitLabApiError:
            return GitLabApiError(
                kind,
                redact(text, settings.token),
                status=status,
                retry_after=retry_after,
                detail=redact(detail, settings.token),
            )

        if isinstance(e, requests.exceptions.Timeout):
            return fail("timeout", f"GitLab did not answer ({what}) within {settings.timeout:g} s")
        if isinstance(
            e, requests.exceptions.ConnectionError | requests.exceptions.ChunkedEncodingError
        ):
            reason = _reason(e)
            if reason in _LOST:
                return fail("connection", f"GitLab {reason} ({what})")
            return fail(
                "connection",
                f"cannot reach GitLab at {settings.api_url} ({reason}) to {what}: "
                "check GITLAB_API_URL and the network",
            )
        if isinstance(e, gitlab.exceptions.GitlabParsingError):
            return fail("invalid", f"GitLab's answer to {what} is not the JSON its API documents")
        if isinstance(e, gitlab.exceptions.RedirectError):
            return fail("rejected", f"GitLab redirected {what}: check GITLAB_API_URL (https?)")
        if not isinstance(e, gitlab.exceptions.GitlabError):
            return fail("rejected", f"GitLab request to {what} failed ({type(e).__name__})")
        status = e.response_code
        detail = _detail(e.error_message)
        if status == 401:
            text = (
                "GitLab rejected the token (401 Unauthorized): check GITLAB_PERSONAL_ACCESS_TOKEN"
            )
            return fail("auth", text, status, detail)
        if status == 403:
            if "insufficient_scope" in detail:
                text = (
                    f"GitLab refused to {what} (403 insufficient_scope): "
                    "the token needs the api scope"
                )
            else:
                text = (
                    f"GitLab refused to {what} (403 Forbidden): the token's user needs the "
                    f"Developer role or higher in {settings.project_path}"
                )
            return fail("forbidden", text, status, detail)
        if status == 404:
            return fail(
                "not_found", f"GitLab found nothing to {what} (404: {detail})", status, detail
            )
        if status == 409:
            return fail("conflict", f"GitLab refused to {what} (409): {detail}", status, detail)
        if status == 429:
            return fail("rate_limited", f"GitLab rate-limited {what} (429)", status, detail)
        if status is not None and status >= 500:
            return fail("server_error", f"GitLab failed to {what} ({status})", status, detail)
        return fail("rejected", f"GitLab refused to {what} ({status}): {detail}", status, detail)


def _dict(answer: object) -> dict[str, Any]:
    return dict(answer) if isinstance(answer, dict) else {}


def _detail(message: object) -> str:
    """GitLab's ``message``/``error``: text, a list of texts, or field → texts."""
    if isinstance(message, list):
        return "; ".join(str(item) for item in message)
    if isinstance(message, dict):
        return "; ".join(
            f"{field} {', '.join(map(str, v)) if isinstance(v, list) else v}"
            for field, v in message.items()
        )
    return str(message)


def _reason(e: Exception) -> str:
    text = str(e)
    for needle, reason in _REASONS:
        if needle in text:
            return reason
    return type(e).__name__

"""One cheap request to the model endpoint at project_verification: fail in seconds, not minutes.

Why: the CLI retries an unreachable endpoint, a 5xx or an overload on its own for
minutes, silently, and a refused key ends each session only after the harness
tried it three times. One request with ``max_tokens: 1`` through the very path
the CLI will use (the agent's :mod:`model proxy <agent.core.endpoint.model_proxy>`)
tells at once whether the endpoint answers and accepts the credentials.

Verdicts: no connection (refused, DNS, unreachable, timeout), 401 and 403 end the
run with one line (:class:`ModelEndpointError`); 400 and 404 (an unknown model,
a gateway without this route), 429, 529 and 5xx are warnings shown at the
checkpoint, since the run may still work; 2xx passes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import httpx2

from agent.core.endpoint.model_proxy import DUMMY_KEY, PROXY_ERROR_HEADER, Upstream
from common.credentials import BASE_URL
from common.errors import ModelEndpointError

PROBE_TIMEOUT_S = 10.0
DEFAULT_PROBE_MODEL = "claude-sonnet-4-5"
"""Asked for when neither the spec nor ``CLAUDE_MODEL`` names a model."""
ANTHROPIC_VERSION = "2023-06-01"
_MAX_MESSAGE = 200


@dataclass(frozen=True)
class ProbeAnswer:
    """What the endpoint (or the proxy, for it) answered."""

    status: int
    proxy_error: str = ""
    """The proxy's :data:`PROXY_ERROR_HEADER`: why the endpoint could not be reached."""
    message: str = ""
    """The error message of the answer's body, if it had one."""


def judge(answer: ProbeAnswer, upstream: Upstream, model: str) -> list[str]:
    """The warnings for ``answer``; raises when the run cannot work.

    Raises:
        ModelEndpointError: no connection, or the credentials were refused (401, 403).
    """
    where = f"model endpoint {upstream.base_url}"
    said = f" ({answer.message})" if answer.message else ""
    check_url = f"check {BASE_URL}"
    if answer.proxy_error:
        words = {
            "refused": "refused the connection",
            "dns": "has a host name that does not resolve",
            "unreachable": "is unreachable",
            "timeout": f"did not answer within {PROBE_TIMEOUT_S:g} s",
        }.get(answer.proxy_error, "could not be reached")
        raise ModelEndpointError(f"{where} {words}; {check_url} and the network")
    if answer.status == 401:
        if upstream.auth == "none":
            raise ModelEndpointError(
                f"{where} answered 401: it needs credentials{said}; set ANTHROPIC_API_KEY"
            )
        what = "the API key" if upstream.auth == "api_key" else "the token"
        raise ModelEndpointError(
            f"{where} answered 401: {what} was refused{said}; set {upstream.variable}"
        )
    if answer.status == 403:
        raise ModelEndpointError(
            f"{where} answered 403: these credentials may not use it{said}; "
            f"check {upstream.variable} and the account's permissions"
        )
    if 200 <= answer.status < 300:
        return []
    if answer.status in (400, 404):
        return [f"{where} answered {answer.status} to a 1-token request for {model}{said}"]
    return [f"{where} answered {answer.status}{said}; the CLI retries such answers itself"]


async def probe_endpoint(
    proxy_url: str, upstream: Upstream, model: str | None, *, within_s: float = PROBE_TIMEOUT_S
) -> list[str]:
    """Send one ``max_tokens: 1`` request through the proxy at ``proxy_url`` and judge it.

    Raises:
        ModelEndpointError: see :func:`judge`.
    """
    model = model or DEFAULT_PROBE_MODEL
    body = {"model": model, "max_tokens": 1, "messages": [{"role": "user", "content": "ping"}]}
    headers = {"x-api-key": DUMMY_KEY, "anthropic-version": ANTHROPIC_VERSION}
    try:
        async with httpx2.AsyncClient(timeout=within_s) as client:
            response = await client.post(f"{proxy_url}/v1/messages", json=body, headers=headers)
    except httpx2.TimeoutException:
        answer = ProbeAnswer(status=0, proxy_error="timeout")
    except httpx2.HTTPError as e:  # the proxy itself is in this process: a bug if reached
        raise ModelEndpointError(f"the agent's model proxy failed: {e}") from e
    else:
        answer = ProbeAnswer(
            status=response.status_code,
            proxy_error=response.headers.get(PROXY_ERROR_HEADER, ""),
            message=_error_message(response.content),
        )
    return judge(answer, upstream, model)


def _error_message(content: bytes) -> str:
    """The ``error.message`` of an Anthropic error body, short and on one line."""
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return ""
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str):
        return ""
    flat = " ".join(message.split())
    return flat if len(flat) <= _MAX_MESSAGE else flat[:_MAX_MESSAGE] + "…"

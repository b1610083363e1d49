"""Which requests the model endpoint forwards from a session: the Messages API, nothing else.

Why: the sandbox reaches the agent's model proxy through the relay and the bridge,
and the model's own commands can speak through the same socket. Without a rule,
they reached every path of the model host (``GET /rt/x.sh`` on the embedded model)
and every API of the real one with the real key. The bundled CLI sends only
``POST /v1/messages?beta=true`` (recorded on a real session against the embedded
model) and, for some features, ``POST /v1/messages/count_tokens``; those two paths
are the whole allowlist.

Pure functions: the verdict on a request line, and the Anthropic-style error
answer (``{"type": "error", "error": {...}}``) the refused client gets, so the CLI
shows a message rather than a parse failure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

ALLOWED_PATHS = ("/v1/messages", "/v1/messages/count_tokens")
"""Every path the bundled CLI uses; compared byte for byte (no normalisation to trick)."""
ALLOWED_METHOD = "POST"
_QUERY = re.compile(r"[A-Za-z0-9_.=&-]*")
"""A query such as ``beta=true``: plain characters only, nothing to re-interpret upstream."""
_SHOWN = 120
"""How much of a refused target a log line shows."""


@dataclass(frozen=True)
class Refusal:
    """Why a request is not forwarded, and the answer that says so."""

    status: int
    error_type: str
    message: str


def shown(text: str) -> str:
    """``text`` as a log line may show it: control and non-ASCII characters escaped, cut short.

    The method and target come from the model's commands: they must not reach a
    person's terminal raw.
    """
    escaped = ascii(text[:_SHOWN])[1:-1]
    return escaped + ("…" if len(text) > _SHOWN else "")


def refusal(method: str, target: str) -> Refusal | None:
    """``None`` when ``method target`` may be forwarded, else why not."""
    path, mark, query = target.partition("?")
    if path not in ALLOWED_PATHS or (mark and not _QUERY.fullmatch(query)):
        return Refusal(
            404,
            "not_found_error",
            f"the harness's model endpoint forwards only POST {' and '.join(ALLOWED_PATHS)}; "
            f"{shown(method)} {shown(target)} refused",
        )
    if method != ALLOWED_METHOD:
        return Refusal(
            405,
            "invalid_request_error",
            f"{shown(method)} {shown(path)}: the harness's model endpoint forwards only POST",
        )
    return None


def closed(method: str, target: str) -> Refusal:
    """The answer while none of the agent's sessions runs (between sessions, at a checkpoint)."""
    return Refusal(
        403,
        "permission_error",
        f"no session of this agent is running: the model endpoint is closed "
        f"({shown(method)} {shown(target)} refused)",
    )


def ended(label: str, method: str, target: str) -> Refusal:
    """The answer on a session's own entrance once its window closed: its late requests
    are nobody's to pay, and no other session's window is reachable from there."""
    return Refusal(
        403,
        "permission_error",
        f"{shown(label)} has ended: the model endpoint is closed to it "
        f"({shown(method)} {shown(target)} refused)",
    )


def budget_spent(spent_usd: float, limit_usd: float) -> Refusal:
    """The answer once a session spent what the run's cost budget had left for it.

    400, not 429 or 5xx: the CLI retries those for minutes; this one ends its turn.
    """
    return Refusal(
        400,
        "invalid_request_error",
        f"the run's cost budget is spent (${spent_usd:.4f} of the ${limit_usd:.4f} left for "
        "this session): the harness ends the session; a person decides at budget_reached",
    )


def malformed(detail: str) -> Refusal:
    """The answer to a request the proxy cannot read (or one naming another host)."""
    return Refusal(400, "invalid_request_error", f"malformed request: {shown(detail)}")


def too_large(limit: int) -> Refusal:
    """The answer to a request body over ``limit`` bytes (the connection is then closed)."""
    return Refusal(
        413, "request_too_large", f"request body over {limit} bytes: refused by the harness"
    )


def held_too_much(limit: int) -> Refusal:
    """The answer to a body that would take the requests held at once past ``limit``
    bytes: the CLI waits and retries a 429, a flood of large bodies from one session's
    programs is not kept in the agent's memory (outside the session's own limits)."""
    return Refusal(
        429,
        "rate_limit_error",
        f"the harness's model endpoint holds {limit} bytes of requests already: try again",
    )


def error_answer(refused: Refusal, *, keep_alive: bool, extra_headers: str = "") -> bytes:
    """A whole HTTP/1.1 answer carrying ``refused`` as an Anthropic error body."""
    body = json.dumps(
        {"type": "error", "error": {"type": refused.error_type, "message": refused.message}}
    ).encode()
    reasons = {
        403: "Forbidden",
        404: "Not Found",
        405: "Method Not Allowed",
        413: "Too Large",
        429: "Too Many Requests",
    }
    head = (
        f"HTTP/1.1 {refused.status} {reasons.get(refused.status, 'Refused')}\r\n"
        "content-type: application/json\r\n"
        f"{extra_headers}"
        f"content-length: {len(body)}\r\n"
        f"connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    return head.encode("latin-1") + body

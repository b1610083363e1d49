"""The tokens an answer of the Messages API used, read at the endpoint.

Why here and not from the CLI's result message: requests the model's own commands
send through the relay never reach the CLI's count, and the CLI's stdout can be
forged by those commands. The answer's ``usage`` is what the account is billed for.

An SSE answer (``stream: true``, what the CLI asks for) carries ``usage`` in its
``message_start`` event (input and cache tokens) and in ``message_delta`` events
(cumulative output, sometimes updated input figures); a JSON answer carries it
whole. Pure functions over the bytes of the answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Tokens of one answer, by billed kind."""

    input_tokens: int = 0
    """Uncached input tokens."""
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    """All cache writes; ``cache_creation_1h_tokens`` of them with the one-hour lifetime."""
    cache_creation_1h_tokens: int = 0
    model: str = ""
    """The model that answered (from the answer), empty when it did not say."""
    found: bool = False
    """Whether the answer carried a ``usage`` at all."""

    @property
    def billed_input(self) -> int:
        """Every input token billed: uncached, cache read and cache write."""
        return self.input_tokens + self.cache_read_tokens + self.cache_creation_tokens


def _count(value: Any) -> int:
    """A token count from the wire: a non-negative int, anything else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def usage_from(fields: dict[str, Any], model: str = "", *, found: bool = True) -> Usage:
    """A :class:`Usage` from an API ``usage`` object."""
    split = fields.get("cache_creation")
    one_hour = _count(split.get("ephemeral_1h_input_tokens")) if isinstance(split, dict) else 0
    creation = _count(fields.get("cache_creation_input_tokens"))
    return Usage(
        input_tokens=_count(fields.get("input_tokens")),
        output_tokens=_count(fields.get("output_tokens")),
        cache_read_tokens=_count(fields.get("cache_read_input_tokens")),
        cache_creation_tokens=creation,
        cache_creation_1h_tokens=min(one_hour, creation),
        model=model,
        found=found,
    )


def read_usage(answer: bytes, content_type: str) -> Usage:
    """The usage of an answer (an SSE stream or a JSON body); zero when it has none."""
    text = answer.decode("utf-8", errors="replace")
    if "text/event-stream" in content_type.lower():
        return _stream_usage(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return Usage()
    if not isinstance(data, dict) or not isinstance(data.get("usage"), dict):
        return Usage()
    return usage_from(data["usage"], str(data.get("model") or ""))


def _stream_usage(text: str) -> Usage:
    fields: dict[str, Any] = {}
    model = ""
    found = False
    for event in _events(text):
        kind = event.get("type")
        if kind == "message_start" and isinstance(event.get("message"), dict):
            message = event["message"]
            model = str(message.get("model") or model)
            if isinstance(message.get("usage"), dict):
                fields.update(message["usage"])
                found = True
        elif kind == "message_delta" and isinstance(event.get("usage"), dict):
            # Cumulative figures: a later one replaces an earlier one, a missing one keeps it.
            fields.update({k: v for k, v in event["usage"].items() if v is not None})
            found = True
    return usage_from(fields, model, found=found)


def _events(text: str) -> list[dict[str, Any]]:
    """The JSON ``data:`` payload of every SSE event that has one."""
    events = []
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].strip() for line in chunk.split("\n") if line.startswith("data:")]
        if not data:
            continue
        try:
            event = json.loads("\n".join(data))
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def requested_model(body: bytes) -> str:
    """The ``model`` a request body names (empty when it is not a JSON object naming one)."""
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return ""
    return str(data.get("model") or "") if isinstance(data, dict) else ""

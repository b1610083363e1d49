"""The Anthropic Messages API wire format: JSON answers, SSE events and errors.

Only what the Claude CLI reads is produced. The streaming sequence is
``message_start``, then per content block ``content_block_start`` /
``content_block_delta`` / ``content_block_stop``, then ``message_delta`` (with the
stop reason) and ``message_stop``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Literal

from agent.model.playbook import Reply, TextBlock

ErrorKind = Literal[
    "invalid_request_error",
    "not_found_error",
    "rate_limit_error",
    "api_error",
    "overloaded_error",
]

SseEvent = dict[str, Any]
"""One event's ``data`` object; its ``type`` is also the SSE event name."""


def estimate_tokens(payload: Any) -> int:
    """A rough token count: a quarter of the JSON length, at least 1."""
    return max(1, len(json.dumps(payload, ensure_ascii=False)) // 4)


def error_body(kind: ErrorKind, message: str) -> dict[str, Any]:
    """The body of an API error, as the Anthropic clients parse it."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def _usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {"input_tokens": input_tokens, "output_tokens": output_tokens}


def _message_id() -> str:
    # Unique per answer: the CLI groups streamed blocks by message id, so two
    # identical answers in one conversation must not share one.
    return f"msg_{uuid.uuid4().hex[:24]}"


def message_json(reply: Reply, model: str, input_tokens: int) -> dict[str, Any]:
    """The whole non-streaming answer."""
    content = [block.model_dump() for block in reply.content]
    return {
        "id": _message_id(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": _usage(input_tokens, estimate_tokens(content)),
    }


def sse_events(reply: Reply, model: str, input_tokens: int) -> list[SseEvent]:
    """The streaming answer as its ordered events, each block in a single delta."""
    message: dict[str, Any] = {
        "id": _message_id(),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _usage(input_tokens, 1),
    }
    events: list[SseEvent] = [{"type": "message_start", "message": message}]
    for index, block in enumerate(reply.content):
        if isinstance(block, TextBlock):
            start: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": block.text}
        else:
            start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block.input)}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    output_tokens = estimate_tokens([block.model_dump() for block in reply.content])
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
            "usage": _usage(input_tokens, output_tokens),
        },
        {"type": "message_stop"},
    ]
    return events


def encode_sse(events: list[SseEvent]) -> bytes:
    """Serialize events as ``event: TYPE`` / ``data: JSON`` / blank line."""
    chunks = [f"event: {event['type']}\ndata: {json.dumps(event)}\n\n" for event in events]
    return "".join(chunks).encode()

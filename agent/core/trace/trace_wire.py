"""A ``/v1/messages`` exchange as a trace event: the request's size, the answer whole.

Pure functions over bytes. The answer arrives as an SSE stream (``stream: true``,
what the CLI asks for) or as one JSON message; both are folded into content
blocks, the stop reason and the usage, as the model meant them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import zlib
from typing import Any

from agent.core.trace import trace
from agent.core.trace.trace import redact_value
from common.schemas.trace import ModelRequest

logger = logging.getLogger(__name__)


def _size(part: Any) -> int:
    if part is None:
        return 0
    return len(json.dumps(part, separators=(",", ":"), ensure_ascii=False).encode())


def system_sha(system: Any) -> str:
    """A short digest of the system prompt (a string or a list of text blocks)."""
    if isinstance(system, list):
        system = "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    return hashlib.sha256(str(system or "").encode()).hexdigest()[:16]


def decode_body(raw: bytes, encoding: str) -> bytes:
    """The body without its ``content-encoding`` (gzip or deflate); as is otherwise."""
    encoding = encoding.lower().strip()
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(raw, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompress(raw)
    return raw


def fold_answer(payload: bytes, content_type: str) -> dict[str, Any]:
    """The answer as one message: ``content``, ``stop_reason`` and ``usage``.

    A stream is replayed event by event (``content_block_start``/``_delta``/``_stop``,
    ``message_delta``); a JSON answer (or an error body) is taken as it is.
    """
    text = payload.decode("utf-8", errors="replace")
    if "text/event-stream" not in content_type:
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return {"content": [], "stop_reason": None, "usage": {}}
        if not isinstance(data, dict):
            return {"content": [], "stop_reason": None, "usage": {}}
        return {
            "content": list(data.get("content") or []),
            "stop_reason": data.get("stop_reason"),
            "usage": dict(data.get("usage") or {}),
        }
    return _fold_stream(text)


def _fold_stream(text: str) -> dict[str, Any]:
    blocks: dict[int, dict[str, Any]] = {}
    partial_json: dict[int, str] = {}
    message: dict[str, Any] = {"content": [], "stop_reason": None, "usage": {}}
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        data_lines = [line[5:].strip() for line in chunk.split("\n") if line.startswith("data:")]
        if not data_lines:
            continue
        try:
            event = json.loads("\n".join(data_lines))
        except json.JSONDecodeError:
            continue
        kind = event.get("type")
        if kind == "message_start":
            message["usage"].update(event.get("message", {}).get("usage") or {})
        elif kind == "content_block_start":
            blocks[int(event["index"])] = dict(event.get("content_block") or {})
        elif kind == "content_block_delta":
            _apply_delta(blocks.setdefault(int(event["index"]), {}), event, partial_json)
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            message["stop_reason"] = delta.get("stop_reason", message["stop_reason"])
            message["usage"].update(event.get("usage") or {})
    for index, raw in partial_json.items():
        try:
            blocks[index]["input"] = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            blocks[index]["input"] = {"_unparsed": raw}
    message["content"] = [blocks[i] for i in sorted(blocks)]
    return message


def _apply_delta(block: dict[str, Any], event: dict[str, Any], partial: dict[int, str]) -> None:
    delta = event.get("delta") or {}
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text", ""))
    elif kind == "input_json_delta":
        index = int(event["index"])
        partial[index] = partial.get(index, "") + str(delta.get("partial_json", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))


def exchange_event(
    *,
    index: int,
    raw_request: bytes,
    status: int,
    answer: bytes,
    content_type: str,
    duration_ms: int,
    secrets: tuple[str, ...] = (),
    cost_usd: float | None = None,
) -> ModelRequest | None:
    """The trace event of one exchange; ``None`` when the request is not a JSON object."""
    try:
        body = json.loads(raw_request)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(body, dict):
        return None
    messages = body.get("messages") or []
    tools = body.get("tools") or []
    folded = fold_answer(answer, content_type)
    usage = folded["usage"]
    return ModelRequest(
        index=index,
        step=sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant"),
        has_tools=bool(tools),
        request_bytes=len(raw_request),
        system_bytes=_size(body.get("system")),
        messages_bytes=_size(messages),
        tools_bytes=_size(tools) if tools else 0,
        message_count=len(messages) if isinstance(messages, list) else 0,
        tool_names=[str(t.get("name", "?")) for t in tools if isinstance(t, dict)],
        system_sha=system_sha(body.get("system")),
        status=status,
        stop_reason=folded["stop_reason"],
        content=redact_value(folded["content"], secrets),
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
        cache_creation_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        duration_ms=duration_ms,
        cost_usd=cost_usd,
    )


def record_exchange(
    target: str,
    raw_request: bytes,
    status: int,
    answer: bytes,
    headers: dict[str, str],
    ms: int,
    *,
    session: trace.TraceSession | None,
    cost_usd: float | None = None,
) -> None:
    """Add one forwarded ``/v1/messages`` exchange of ``session`` (``None``: of no session)
    to the open trace (if any), with the cost the endpoint charged for it (``None`` when
    nothing charged it). Its index counts ``session``'s requests alone.

    An answer the trace cannot read must not cut the CLI's connection: the failure is
    logged and the exchange left out of the trace.
    """
    tracer = trace.current()
    if tracer is None or not target.split("?", 1)[0].rstrip("/").endswith("/v1/messages"):
        return
    index = tracer.next_request(session)  # counted even when its answer cannot be read
    try:
        payload = decode_body(answer, headers.get("content-encoding", ""))
        event = exchange_event(
            index=index,
            raw_request=raw_request,
            status=status,
            answer=payload,
            content_type=headers.get("content-type", ""),
            duration_ms=ms,
            secrets=tracer.secrets,
            cost_usd=cost_usd,
        )
    except (zlib.error, ValueError, KeyError, TypeError) as e:
        logger.warning("trace: cannot read the answer to %s: %s", target, e)
        return
    if event is None:
        return
    try:  # not emit(): the proxy's task is no session's, so only ``session`` is taken
        tracer.write(event, session)
    except OSError as e:
        logger.warning("trace %s: cannot write an exchange: %s", tracer.path, e)

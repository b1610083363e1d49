"""What each ``/v1/messages`` request weighed, appended to a JSONL file.

For measuring what the harness sends a model, not what it answers: one line per
request with its byte size in total and by part (``system``, ``messages``,
``tools``), the tool names offered and the model name. A benchmark groups the
lines by session; nothing in the harness reads them back.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from common.schemas.model_request import RequestRecord

#: The environment variable ``python -m agent.model`` takes its ``--record`` default from.
RECORD_ENV = "HARNESS_MODEL_RECORD"


def _size(part: Any) -> int:
    if part is None:
        return 0
    return len(json.dumps(part, separators=(",", ":"), ensure_ascii=False).encode())


def describe(raw_size: int, body: dict[str, Any]) -> RequestRecord:
    """Measure one request body (pure)."""
    tools = body.get("tools") or []
    messages = body.get("messages") or []
    return RequestRecord(
        total_bytes=raw_size,
        system_bytes=_size(body.get("system")),
        messages_bytes=_size(messages),
        tools_bytes=_size(tools) if tools else 0,
        tool_names=[str(t.get("name", "?")) for t in tools if isinstance(t, dict)],
        tool_calls=_tool_calls(messages),
        message_count=len(messages) if isinstance(messages, list) else 0,
        model=str(body.get("model") or ""),
    )


def _tool_calls(messages: Any) -> list[str]:
    if not isinstance(messages, list):
        return []
    return [
        str(block.get("name", "?"))
        for message in messages
        if isinstance(message, dict) and message.get("role") == "assistant"
        for block in message.get("content") or []
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]


class RequestRecorder:
    """Appends a :class:`RequestRecord` line per request; safe across handler threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def record(self, raw_size: int, body: dict[str, Any]) -> None:
        """Append one line; the file is flushed and closed after each line, so readers see it."""
        line = describe(raw_size, body).model_dump_json() + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line)


def read_records(path: Path) -> list[RequestRecord]:
    """Every record in ``path``, in arrival order; none when the file does not exist."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [RequestRecord.model_validate_json(line) for line in lines if line.strip()]

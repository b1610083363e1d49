"""A session's events in the trace: its start (with what a replay needs), its tool
calls and results as the SDK reports them, and its end with figures or an error."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claude_agent_sdk import AssistantMessage, ToolResultBlock, ToolUseBlock, UserMessage

from agent.core.session.toolset import RESEARCH_KINDS, RESEARCH_TOOLS, SURFACES, ToolSurface
from agent.core.trace import trace
from common.errors import GitError
from common.schemas.trace import SessionEnd, SessionStart, ToolCall, ToolResult
from common.workspace import git

if TYPE_CHECKING:
    from agent.core.session.result import SessionResult
    from agent.core.session.tools import SessionReports


def kind_of(surface: ToolSurface) -> str | None:
    """The session kind whose tool surface this is (``None`` for an ad-hoc one); a kind
    that may research is still itself with the research tools it was offered."""
    plain = ToolSurface(
        surface.builtin, tuple(t for t in surface.harness if t not in RESEARCH_TOOLS)
    )
    for kind, known in SURFACES.items():
        if known == surface.without_servers() or (kind in RESEARCH_KINDS and known == plain):
            return kind
    return None


def _head(project: Path) -> tuple[str | None, bool]:
    try:
        head = git.head_commit(project)
        dirty = git.git(project, "status", "--porcelain", "--untracked-files=no") != ""
    except GitError:
        return None, False
    return head, dirty


@dataclass
class TracedSession:
    """Filled in by the session as it goes; read when the session ends."""

    label: str
    reports: SessionReports
    figures: SessionResult | None = None
    session: trace.TraceSession | None = None
    """The session's handle in the trace (``None`` with no trace open): whatever records
    for it from outside its task (the model proxy) is handed this."""


@contextlib.asynccontextmanager
async def traced_session(
    label: str,
    system_prompt: str,
    prompt: str,
    project_dir: Path,
    model: str | None,
    reports: SessionReports,
) -> AsyncIterator[TracedSession]:
    """Emit the session's start now and its end when the block ends (with the error
    that ended it, if one did); in the block, the running task's events are the session's
    (:func:`agent.core.trace.trace.within`), whatever other sessions run meanwhile."""
    tracer = trace.current()
    traced = TracedSession(label, reports)
    if tracer is None:
        yield traced
        return
    session = traced.session = tracer.start_session()
    # Off the event loop: with slots side by side, one slot's git must not stall the others.
    head, dirty = await asyncio.to_thread(_head, project_dir)
    surface = reports.surface
    trace.emit(
        SessionStart(
            session=session.number,
            label=label,
            kind=kind_of(surface),
            builtin_tools=list(surface.builtin),
            harness_tools=list(surface.harness),
            mcp_servers=[server.name for server in surface.servers],
            expected_issue=reports.expected_issue,
            system_prompt=trace.redact(system_prompt, tracer.secrets),
            prompt=trace.redact(prompt, tracer.secrets),
            model=model,
            project_dir=str(project_dir),
            head=head,
            dirty=dirty,
        )
    )
    error: str | None = None
    try:
        with trace.within(session):
            yield traced
    except BaseException as e:
        error = str(e) or type(e).__name__
        raise
    finally:
        trace.emit(_end(traced, error), session)
        tracer.end_session(session)


def _end(traced: TracedSession, error: str | None) -> SessionEnd:
    calls = list(traced.reports.calls)
    figures = traced.figures
    if figures is None:
        return SessionEnd(label=traced.label, error=error or "no result", reports=calls)
    return SessionEnd(
        label=traced.label,
        error=error,
        turns=figures.turns,
        cost_usd=figures.cost_usd,
        input_tokens=figures.input_tokens,
        output_tokens=figures.output_tokens,
        cache_read_tokens=figures.cache_read_tokens,
        cache_creation_tokens=figures.cache_creation_tokens,
        duration_ms=figures.duration_ms,
        denials=figures.denials,
        touched=sorted(figures.touched),
        reports=calls,
    )


def message(sdk_message: Any) -> None:
    """Tool calls of an assistant message and tool results of a user message."""
    if trace.current() is None:
        return
    known = trace.secrets()
    if isinstance(sdk_message, AssistantMessage):
        for block in sdk_message.content:
            if isinstance(block, ToolUseBlock):
                data = trace.redact_value(dict(block.input), known)
                trace.emit(ToolCall(id=block.id, name=block.name, input=data))
    elif isinstance(sdk_message, UserMessage) and isinstance(sdk_message.content, list):
        for block in sdk_message.content:
            if isinstance(block, ToolResultBlock):
                text = _text(block.content)
                trace.emit(
                    ToolResult(
                        id=block.tool_use_id,
                        is_error=bool(block.is_error),
                        preview=trace.redact(text, known)[: trace.PREVIEW_CHARS],
                        chars=len(text),
                    )
                )


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(
        str(part.get("text", "")) if part.get("type") == "text" else json.dumps(part)
        for part in content
    )

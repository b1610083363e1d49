"""PreToolUse and PostToolUse hooks: every tool call passes through here.

The CLI lets a tool run when a hook raises, returns nothing or returns an
invalid decision (measured with claude-agent-sdk 0.2.189), so every PreToolUse
hook is wrapped by :func:`fail_closed`: any error becomes a deny with its reason.

File tools are kept inside the project here, and their writes out of the files the
harness reads (:mod:`agent.core.policy.protected`: ``.git`` at any depth, ``*.pth``,
``pyvenv.cfg``), the same rule as for Bash; Bash commands are judged by the command
policy (:mod:`agent.core.policy`). Every decision is written to the agent's log and
counted (:mod:`agent.core.policy.audit`).

MCP tools: the harness's own (``mcp__harness__*``) check their input themselves; a
tool of an MCP server the session was given (``mcp__<server>__*``, a server the spec or
the person at project_verification named) is allowed, logged and counted like every
call: what it does is the server's, which runs in the session's sandbox (stdio) or is
the remote service the person approved (url), and the command policy has no rule for a
tool it cannot read. A tool of any other MCP server is refused: nobody approved it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import HookContext, HookMatcher
from claude_agent_sdk.types import HookInput, HookJSONOutput, SyncHookJSONOutput

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.audit import AuditTrail
from agent.core.policy.protected import refusal_at
from agent.core.trace import trace
from common.paths import WorkspaceFiles

HookResult = HookJSONOutput
Hook = Callable[[HookInput, str | None, HookContext], Awaitable[HookJSONOutput]]

#: Tools whose input names a file or folder, and the key that holds it.
PATH_KEYS: dict[str, tuple[str, ...]] = {
    "Read": ("file_path",),
    "Write": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("path",),
    "Grep": ("path",),
}
WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})
MCP_PREFIX = "mcp__"
HARNESS_SERVER = "harness"
_VALID_DECISIONS = frozenset({"allow", "deny", "ask"})


def allow() -> SyncHookJSONOutput:
    """An explicit allow (an empty answer would also allow, but says nothing)."""
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


def deny(reason: str) -> SyncHookJSONOutput:
    """Refuse the tool call; the model sees ``reason`` as the tool's error."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def fail_closed(hook: Hook) -> Hook:
    """Wrap a PreToolUse hook so that an exception or a malformed answer denies."""

    async def guarded(
        data: HookInput, tool_use_id: str | None, context: HookContext
    ) -> HookJSONOutput:
        try:
            result = await hook(data, tool_use_id, context)
        except Exception as e:  # any failure of ours must block, never let the tool run
            return deny(f"harness hook failed ({type(e).__name__}: {e}); tool call refused")
        specific: Any = result.get("hookSpecificOutput") if isinstance(result, dict) else None
        decision = specific.get("permissionDecision") if isinstance(specific, dict) else None
        if decision not in _VALID_DECISIONS:
            return deny(f"harness hook gave no valid decision ({result!r}); tool call refused")
        return result

    return guarded


@dataclass(frozen=True)
class PolicySetup:
    """An agent's command policy for its sessions
    (:class:`~agent.core.session.session.SessionConfig`): the context (spec settings,
    test command) and where the audit counts go."""

    context: PolicyContext
    files: WorkspaceFiles | None = None


@dataclass
class ToolPolicy:
    """What the model may touch: files inside the project, Bash judged by the policy."""

    project_dir: Path
    context: PolicyContext | None = None
    """The command policy's context; the defaults for the project when ``None``."""
    mcp_servers: frozenset[str] = frozenset()
    """The MCP servers of the user's the session was given, by name: their tools run."""

    def check(
        self, tool_name: str, tool_input: dict[str, Any], cwd: Path | None = None
    ) -> str | None:
        """The reason to refuse this call, or ``None`` to allow it.

        ``cwd`` is the shell's folder as the hook reports it (Bash only).
        """
        if tool_name == "Bash":
            return self._check_bash(str(tool_input.get("command", "")), cwd)
        if tool_name.startswith(MCP_PREFIX):
            return self._check_mcp(tool_name)
        for key in PATH_KEYS.get(tool_name, ()):
            raw = tool_input.get(key)
            if raw is None:
                continue
            reason = self._check_path(str(raw), writing=tool_name in WRITING_TOOLS)
            if reason:
                return reason
        return None

    def _check_mcp(self, tool_name: str) -> str | None:
        server = tool_name.removeprefix(MCP_PREFIX).partition("__")[0]
        if server == HARNESS_SERVER or server in self.mcp_servers:
            return None
        return f"{tool_name} is not a tool of an MCP server this session was given"

    def _check_path(self, raw: str, *, writing: bool) -> str | None:
        root = self.project_dir.resolve()
        candidate = Path(raw).expanduser()
        resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
        if not resolved.is_relative_to(root):
            return f"{raw} is outside the project directory {root}"
        if writing:
            written = candidate if candidate.is_absolute() else root / candidate
            return refusal_at(root, written, resolved, raw)
        return None

    def _check_bash(self, command: str, cwd: Path | None) -> str | None:
        context = self.context or PolicyContext.for_project(self.project_dir.resolve())
        return judge_command(command, context, cwd)


@dataclass
class FileTracker:
    """Collects the project files the model wrote this session (for the commit)."""

    project_dir: Path
    touched: set[str] = field(default_factory=set)

    def note(self, tool_name: str, tool_input: dict[str, Any]) -> None:
        if tool_name not in WRITING_TOOLS:
            return
        for key in PATH_KEYS[tool_name]:
            raw = tool_input.get(key)
            if raw is None:
                continue
            root = self.project_dir.resolve()
            path = Path(str(raw)).expanduser()
            resolved = (path if path.is_absolute() else root / path).resolve()
            if resolved.is_relative_to(root):
                self.touched.add(str(resolved.relative_to(root)))


def build_hooks(
    policy: ToolPolicy,
    tracker: FileTracker,
    log: Callable[[str], None],
    audit: AuditTrail | None = None,
) -> dict[Any, list[HookMatcher]]:
    """The hook configuration of a session: the policy before, the file tracker after.

    Every decision goes to ``audit`` (by default: ``log`` alone, nothing counted).
    """
    trail = audit or AuditTrail(log)

    async def pre_tool_use(data: HookInput, _id: str | None, _ctx: HookContext) -> HookResult:
        fields: dict[str, Any] = dict(data)
        name = str(fields["tool_name"])
        tool_input = dict(fields.get("tool_input") or {})
        cwd = Path(str(fields["cwd"])) if fields.get("cwd") else None
        reason = policy.check(name, tool_input, cwd)
        trace.policy(name, reason)
        trail.record(name, tool_input, reason)
        return allow() if reason is None else deny(reason)

    async def post_tool_use(data: HookInput, _id: str | None, _ctx: HookContext) -> HookResult:
        fields: dict[str, Any] = dict(data)
        tracker.note(str(fields.get("tool_name", "")), dict(fields.get("tool_input") or {}))
        return {}

    return {
        "PreToolUse": [
            HookMatcher(matcher=None, hooks=[fail_closed(pre_tool_use)], on_failure="block")
        ],
        "PostToolUse": [HookMatcher(matcher=None, hooks=[post_tool_use])],
    }

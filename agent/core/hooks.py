"""PreToolUse and PostToolUse hooks: every tool call passes through here.

The CLI lets a tool run when a hook raises, returns nothing or returns an
invalid decision (measured with claude-agent-sdk 0.2.189), so every PreToolUse
hook is wrapped by :func:`fail_closed`: any error becomes a deny with its reason.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import HookContext, HookMatcher
from claude_agent_sdk.types import HookInput, HookJSONOutput, SyncHookJSONOutput

from agent.core import trace
from common.paths import WORKSPACE_ROOT_NAME

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
_VALID_DECISIONS = frozenset({"allow", "deny", "ask"})

#: git subcommands the harness owns: the model must not commit, move or rewrite branches.
_GIT_OWNED = frozenset(
    {"commit", "push", "checkout", "switch", "reset", "rebase", "merge", "branch"}
)
#: git's global options that take a separate argument (``git -C dir commit``).
_GIT_OPTIONS_WITH_ARGUMENT = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
#: Words that run the rest of their segment as a command.
_WRAPPERS = frozenset({"env", "command", "exec", "nohup", "sudo", "time", "xargs", "nice"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


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


@dataclass
class ToolPolicy:
    """What the model may touch: files inside the project, git left to the harness."""

    project_dir: Path

    def check(self, tool_name: str, tool_input: dict[str, Any]) -> str | None:
        """The reason to refuse this call, or ``None`` to allow it."""
        if tool_name == "Bash":
            return self._check_bash(str(tool_input.get("command", "")))
        for key in PATH_KEYS.get(tool_name, ()):
            raw = tool_input.get(key)
            if raw is None:
                continue
            reason = self._check_path(str(raw), writing=tool_name in WRITING_TOOLS)
            if reason:
                return reason
        return None

    def _check_path(self, raw: str, *, writing: bool) -> str | None:
        root = self.project_dir.resolve()
        candidate = Path(raw).expanduser()
        resolved = (candidate if candidate.is_absolute() else root / candidate).resolve()
        if not resolved.is_relative_to(root):
            return f"{raw} is outside the project directory {root}"
        if writing:
            first = resolved.relative_to(root).parts[:1]
            if first in ((".git",), (WORKSPACE_ROOT_NAME,)):
                return f"{raw} belongs to the harness ({first[0]}/); edit project files only"
        return None

    def _check_bash(self, command: str) -> str | None:
        return check_git_ownership(command)


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


def check_git_ownership(command: str, depth: int = 0) -> str | None:
    """The reason to refuse a shell command that runs a git subcommand the harness owns.

    The command is split at every shell operator (``; & | && || ( ) $( `…```), leading
    ``NAME=value`` words and wrappers (``env``, ``nohup``, ``sh -c "…"``, ``eval``) are looked
    through, and git's global options (``-C dir``, ``-c key=value``) are skipped.
    """
    if depth > 3:
        return "command nesting too deep to check"
    for segment in _segments(command.replace("`", " ; ").replace("\n", " ; ")):
        words = list(segment)
        while words and (_ASSIGNMENT.match(words[0]) or Path(words[0]).name in _WRAPPERS):
            words.pop(0)
            while words and words[0].startswith("-"):
                words.pop(0)  # a wrapper's own options
        if not words:
            continue
        program = Path(words[0]).name
        if program == "timeout" and len(words) > 2:
            words = words[2:]
            program = Path(words[0]).name
        if program in _SHELLS and "-c" in words[1:-1]:
            nested = words[words.index("-c") + 1]
            reason = check_git_ownership(nested, depth + 1)
        elif program == "eval":
            reason = check_git_ownership(" ".join(words[1:]), depth + 1)
        elif program == "git":
            sub = _git_subcommand(words[1:])
            reason = (
                f"git {sub} is done by the harness, not the model" if sub in _GIT_OWNED else None
            )
        else:
            reason = None
        if reason:
            return reason
    return None


def _segments(command: str) -> list[list[str]]:
    """Split a shell command into simple commands at every operator and parenthesis."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    segments: list[list[str]] = [[]]
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: fall back to plain words
        tokens = command.split()
    for token in tokens:
        if token and all(char in "();<>|&\n" for char in token):
            segments.append([])
        else:
            segments[-1].append(token.removeprefix("$"))
    return [segment for segment in segments if segment]


def _git_subcommand(args: list[str]) -> str:
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in _GIT_OPTIONS_WITH_ARGUMENT:
            index += 2
        elif arg.startswith("-"):
            index += 1
        else:
            return arg
    return ""


def build_hooks(
    policy: ToolPolicy, tracker: FileTracker, log: Callable[[str], None]
) -> dict[Any, list[HookMatcher]]:
    """The hook configuration of a session: the policy before, the file tracker after."""

    async def pre_tool_use(data: HookInput, _id: str | None, _ctx: HookContext) -> HookResult:
        fields: dict[str, Any] = dict(data)
        name = str(fields["tool_name"])
        reason = policy.check(name, dict(fields.get("tool_input") or {}))
        trace.policy(name, reason)
        if reason is not None:
            log(f"[policy] denied {name}: {reason}")
            return deny(reason)
        return allow()

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

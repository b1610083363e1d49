"""The audit: every policy decision and every rejected forgery, logged and counted.

Each PreToolUse decision becomes one line of the agent's log
(``[policy] deny Bash "curl …": network clients …``) and one count in the workspace's
``.policy_audit.json``, which ``harness status`` reads, also after the agent ended.
Counts are updated under a file lock: the agent's hook and a forgery check in another
process may write at the same moment.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent.core.log import AgentLog
from agent.core.policy.denial_class import denial_class
from common.atomic import locked, read_model_or_none, write_model
from common.paths import WorkspaceFiles
from common.schemas.policy_counts import PolicyCounts
from common.untrusted_text import printable_name

Log = Callable[[str], None]

#: Longest input summary in a log line.
SUMMARY_LENGTH = 80
_PATH_KEYS = ("file_path", "notebook_path", "path", "pattern", "url")


def summarize(tool_name: str, tool_input: dict[str, Any]) -> str:
    """A short one-line view of a tool call's input."""
    if tool_name == "Bash":
        text = str(tool_input.get("command", ""))
    else:
        key = next((k for k in _PATH_KEYS if k in tool_input), None)
        # A path is a name: its look-alike blanks (NBSP, U+3000, U+2800) are escaped too.
        text = printable_name(str(tool_input[key])) if key else json.dumps(tool_input)
    text = text.replace("\n", " ⏎ ")
    return text if len(text) <= SUMMARY_LENGTH else text[: SUMMARY_LENGTH - 1] + "…"


def decision_line(tool_name: str, tool_input: dict[str, Any], reason: str | None) -> str:
    """The log line of one decision: ``[policy] allow|deny TOOL "summary"[: reason]``."""
    verdict = "allow" if reason is None else "deny"
    line = f'[policy] {verdict} {tool_name} "{summarize(tool_name, tool_input)}"'
    return line if reason is None else f"{line}: {reason}"


def read_counts(files: WorkspaceFiles) -> PolicyCounts:
    """The workspace's counts (all zero when nothing was recorded yet)."""
    return read_model_or_none(files.policy_counts, PolicyCounts) or PolicyCounts()


def status_line(counts: PolicyCounts) -> str:
    """What ``harness status`` shows."""
    line = (
        f"policy: {counts.allowed} allowed, {counts.denied} denied, "
        f"{counts.forgeries} forgeries rejected"
    )
    if counts.endpoint_refused:
        line += f", {counts.endpoint_refused} model endpoint requests refused"
    if counts.host_refused:
        line += f", {counts.host_refused} sandbox connections refused"
    return line


def _bump(files: WorkspaceFiles, field: str) -> None:
    with locked(files.policy_counts_lock):
        counts = read_counts(files)
        setattr(counts, field, getattr(counts, field) + 1)
        write_model(files.policy_counts, counts)


def _bump_denial(files: WorkspaceFiles, tool_name: str, reason: str) -> None:
    """Count a denial in ``denied`` and in its class, in one write."""
    kind = denial_class(tool_name, reason)
    with locked(files.policy_counts_lock):
        counts = read_counts(files)
        by_class = {**counts.denied_by_class, kind: counts.denied_by_class.get(kind, 0) + 1}
        write_model(
            files.policy_counts,
            counts.model_copy(update={"denied": counts.denied + 1, "denied_by_class": by_class}),
        )


class AuditTrail:
    """Where one agent's decisions go: its log, and its workspace's counts (if any)."""

    def __init__(self, log: Log, files: WorkspaceFiles | None = None) -> None:
        self.log = log
        self.files = files

    def record(self, tool_name: str, tool_input: dict[str, Any], reason: str | None) -> None:
        """Log and count one PreToolUse decision (``reason`` ``None`` means allowed)."""
        self.log(decision_line(tool_name, tool_input, reason))
        if self.files is None:
            return
        if reason is None:
            _bump(self.files, "allowed")
        else:
            _bump_denial(self.files, tool_name, reason)


def record_forgery(files: WorkspaceFiles, detail: str, log: Log | None = None) -> None:
    """Log and count a rejected forgery (a decision or switch not made by a client).

    ``log`` defaults to this process's standard output, which for an agent is its log.
    """
    (log or AgentLog())(f"[policy] forgery rejected: {detail}")
    _bump(files, "forgeries")


def record_endpoint_refusal(files: WorkspaceFiles, detail: str, log: Log | None = None) -> None:
    """Count a request the model endpoint refused (the meter logged it; ``log`` may too)."""
    if log is not None:
        log(f"[policy] {detail}")
    _bump(files, "endpoint_refused")


def record_host_refusal(files: WorkspaceFiles) -> None:
    """Count a connection the sandbox's filtering proxy refused (the proxy logged it)."""
    _bump(files, "host_refused")

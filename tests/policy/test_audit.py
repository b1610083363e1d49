"""The audit: one log line per decision, counts in the workspace, forgeries counted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, cast

from claude_agent_sdk import HookContext
from claude_agent_sdk.types import HookInput

from agent.core.policy import PolicyContext
from agent.core.policy.audit import (
    AuditTrail,
    decision_line,
    read_counts,
    record_forgery,
    status_line,
    summarize,
)
from agent.core.session.hooks import FileTracker, ToolPolicy, build_hooks
from common.paths import WorkspaceFiles
from common.schemas.policy import PolicySettings
from common.schemas.policy_counts import DenialClass, PolicyCounts

CONTEXT = cast(HookContext, {"signal": None})


def test_a_summary_is_one_short_line() -> None:
    long = "echo " + "x" * 200

    assert summarize("Bash", {"command": "ls\npwd"}) == "ls ⏎ pwd"
    assert len(summarize("Bash", {"command": long})) == 80
    assert summarize("Bash", {"command": long}).endswith("…")
    assert summarize("Read", {"file_path": "/p/a.py", "limit": 3}) == "/p/a.py"
    assert summarize("TodoWrite", {"todos": []}) == '{"todos": []}'


def test_decision_lines_say_tool_input_verdict_and_reason() -> None:
    assert decision_line("Bash", {"command": "ls"}, None) == '[policy] allow Bash "ls"'
    assert decision_line("Bash", {"command": "curl x"}, "no network") == (
        '[policy] deny Bash "curl x": no network'
    )


def test_counts_start_at_zero_and_persist(tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path / "ws")
    logged: list[str] = []
    trail = AuditTrail(logged.append, files)

    assert read_counts(files) == PolicyCounts()
    trail.record("Bash", {"command": "ls"}, None)
    trail.record("Bash", {"command": "curl x"}, "network")
    trail.record("Read", {"file_path": "/etc/passwd"}, "outside")
    record_forgery(files, "approval written by Bash", log=logged.append)

    assert read_counts(files) == PolicyCounts(
        allowed=1,
        denied=2,
        denied_by_class={DenialClass.COMMAND_NETWORK: 1, DenialClass.PROTECTED_WRITE: 1},
        forgeries=1,
    )
    assert logged[-1] == "[policy] forgery rejected: approval written by Bash"
    assert status_line(read_counts(files)) == ("policy: 1 allowed, 2 denied, 1 forgeries rejected")


REPO = Path(__file__).resolve().parents[2]


def _forge_many(root: str, count: int) -> None:
    for index in range(count):
        record_forgery(WorkspaceFiles(Path(root)), f"attempt {index}", log=lambda _: None)


def test_counts_from_several_processes_add_up(tmp_path: Path) -> None:
    """Three other processes (plain interpreters: multiprocessing's spawn would leave its
    resource tracker running after the test) record forgeries while this one records
    allowed calls."""
    files = WorkspaceFiles(tmp_path / "ws")
    forge = f"from tests.policy.test_audit import _forge_many; _forge_many({str(files.root)!r}, 25)"
    workers = [subprocess.Popen([sys.executable, "-c", forge], cwd=REPO) for _ in range(3)]
    trail = AuditTrail(lambda _: None, files)
    for _ in range(25):
        trail.record("Bash", {"command": "ls"}, None)
    for worker in workers:
        assert worker.wait(timeout=60) == 0

    assert read_counts(files) == PolicyCounts(allowed=25, forgeries=75)


def pre_tool_use(name: str, tool_input: dict[str, Any], cwd: str) -> HookInput:
    return cast(
        HookInput,
        {
            "hook_event_name": "PreToolUse",
            "session_id": "s",
            "transcript_path": "/dev/null",
            "cwd": cwd,
            "tool_name": name,
            "tool_input": tool_input,
        },
    )


async def test_the_hook_uses_the_given_policy_and_counts(project: Path, tmp_path: Path) -> None:
    files = WorkspaceFiles(tmp_path / "ws")
    settings = PolicySettings(allow_one_liners=True)
    logged: list[str] = []
    hooks = build_hooks(
        ToolPolicy(project, PolicyContext.for_project(project, settings)),
        FileTracker(project),
        logged.append,
        AuditTrail(logged.append, files),
    )
    pre = hooks["PreToolUse"][0].hooks[0]

    await pre(pre_tool_use("Bash", {"command": "python -c 'print(1)'"}, str(project)), "1", CONTEXT)
    await pre(
        pre_tool_use("Bash", {"command": "cat ../README.md"}, str(project / "src")), "2", CONTEXT
    )
    await pre(pre_tool_use("Bash", {"command": "curl x | sh"}, str(project)), "3", CONTEXT)
    await pre(pre_tool_use("Read", {"file_path": "/etc/passwd"}, str(project)), "4", CONTEXT)

    assert read_counts(files) == PolicyCounts(
        allowed=2,
        denied=2,
        denied_by_class={DenialClass.COMMAND_NETWORK: 1, DenialClass.OUTSIDE_PROJECT: 1},
    )
    assert logged[0] == "[policy] allow Bash \"python -c 'print(1)'\""
    assert logged[2].startswith('[policy] deny Bash "curl x | sh": curl is a network client')
    assert logged[3].startswith('[policy] deny Read "/etc/passwd": /etc/passwd is outside')


async def test_without_a_given_policy_the_defaults_apply(project: Path) -> None:
    logged: list[str] = []
    hooks = build_hooks(ToolPolicy(project), FileTracker(project), logged.append)
    pre = hooks["PreToolUse"][0].hooks[0]

    result = await pre(pre_tool_use("Bash", {"command": "python -c 1"}, "/"), "1", CONTEXT)

    specific = cast(dict[str, Any], result)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "python -c runs a program" in specific["permissionDecisionReason"]
    assert logged == [f'[policy] deny Bash "python -c 1": {specific["permissionDecisionReason"]}']

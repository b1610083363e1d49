"""``harness policy check-bash``: ask the command policy about one command, or many.

``harness policy check-bash "COMMAND"`` prints ``allow`` or ``deny: REASON`` and exits 0
or 1. ``--jsonl`` reads ``{"cmd": "…"}`` lines (optionally ``"cwd"``, absolute or
relative to the project) on standard input and prints one verdict a line,
``{"allow": true, "reason": null}``, so a team can measure the policy on the commands
its agents actually ran; a line that is not such an object gets a verdict with an
``"error"`` instead of stopping the run, and the exit status is 0 unless standard input
cannot be read. The commands of an agent's trace::

    harness trace AGENT --json \\
      | jq -c 'select(.type == "tool_call" and .name == "Bash") | {cmd: .input.command}' \\
      | harness policy check-bash --jsonl --project DIR

A command is judged as a sandboxed agent's (the default for an agent) unless
``--unsandboxed`` asks for the strict rules of an agent whose spec says
``"sandbox": false``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from agent.core.policy import PolicyContext, judge_command
from common.errors import HarnessError
from common.project_env import detect as detect_project_env


class StdinUnreadable(HarnessError):
    """Standard input could not be read: the only failure of ``--jsonl``."""


async def cmd_policy_check_bash(args: argparse.Namespace) -> int:
    context = await asyncio.to_thread(policy_context, args.project, sandboxed=args.sandboxed)
    if args.jsonl:
        if args.bash_command is not None:
            raise HarnessError("give either a COMMAND or --jsonl (commands on stdin), not both")
        await asyncio.to_thread(_judge_stdin, context)
        return 0
    if args.bash_command is None:
        raise HarnessError("give a COMMAND to judge, or --jsonl to read commands from stdin")
    reason = await asyncio.to_thread(judge_command, args.bash_command, context)
    print("allow" if reason is None else f"deny: {reason}")
    return 0 if reason is None else 1


def policy_context(project_arg: str | None, *, sandboxed: bool) -> PolicyContext:
    """The policy of a project (here by default) with its detected test command."""
    project = Path(project_arg).expanduser() if project_arg else Path.cwd()
    if not project.is_dir():
        raise HarnessError(f"{project} is not a folder")
    test_command = detect_project_env(project, os.environ).test_command
    return PolicyContext.for_project(project, test_command=test_command, sandboxed=sandboxed)


def _judge_stdin(context: PolicyContext) -> None:
    for verdict in judge_lines(_lines(sys.stdin.buffer), context):
        sys.stdout.write(json.dumps(verdict, ensure_ascii=True) + "\n")
        sys.stdout.flush()  # a verdict as soon as its line is judged: pipes stay live


def _lines(stream: BinaryIO) -> Iterator[bytes]:
    try:
        yield from stream
    except OSError as e:
        raise StdinUnreadable(f"cannot read standard input: {e.strerror or e}") from e


def judge_lines(lines: Iterable[bytes], context: PolicyContext) -> Iterator[dict[str, Any]]:
    """One verdict per line: ``{"allow", "reason"}``, or ``{"allow": false, "reason":
    null, "error"}`` for a line that is not a ``{"cmd": …}`` object. Blank lines too get
    an error verdict, so verdict N always answers line N."""
    for number, raw in enumerate(lines, start=1):
        try:
            command, cwd = _command_of(raw, context.project_dir)
        except ValueError as e:
            yield {"allow": False, "reason": None, "error": f"line {number}: {e}"}
            continue
        reason = judge_command(command, context, cwd)
        yield {"allow": reason is None, "reason": reason}


def _command_of(raw: bytes, project: Path) -> tuple[str, Path | None]:
    """The command and folder of one input line; :class:`ValueError` says what is wrong."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 (byte {e.start})") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg})") from e
    if not isinstance(data, dict):
        raise ValueError('not a JSON object like {"cmd": "..."}')
    command = data.get("cmd")
    if not isinstance(command, str):
        raise ValueError('no "cmd" string')
    cwd = data.get("cwd")
    if cwd is None:
        return command, None
    if not isinstance(cwd, str) or "\0" in cwd:
        raise ValueError('"cwd" is not a folder name')
    return command, project / cwd

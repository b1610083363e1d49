"""``harness``'s command line: every command, its arguments, and where its code lives.

Why a table of names and not of functions: a command's module is imported only when
that command runs, so ``harness list`` never loads the Claude SDK, MCP, textual,
python-gitlab or aiohttp that other commands need. This module imports argparse and
nothing heavy; a new command names its ``module:function`` here.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Protocol

from agent.control.parse_errors import OneLineParser
from common import help_text

CONTROL = "agent.control"

PROGRAM_DESCRIPTION = """harness: run specs, watch agents, answer checkpoints, manage the daemon.

Every error is one line on stderr and a non-zero exit status.
"""


#: The commands that start agents, the daemon or the TUI: they read ``.env`` as
#: ``start.sh`` does (:mod:`common.env_file`), so its credentials reach the agents.
READS_ENV = frozenset({"run", "resume", "demo", "web", "eval", "daemon"})


def line_count(text: str) -> int:
    """``harness logs -n``'s value: a whole number of lines, 0 or more.

    Why: ``-n -5`` printed nothing and exited 0, as if the log were empty.
    """
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of lines") from None
    if count < 0:
        raise argparse.ArgumentTypeError(f"{count} lines: give 0 or more")
    return count


def build_parser() -> argparse.ArgumentParser:
    """The parser; each command's ``command`` default is the ``module:function`` to run."""
    parser = OneLineParser(prog="harness", description=help_text.plain(PROGRAM_DESCRIPTION))
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    def add(name: str, target: str, help_text: str) -> argparse.ArgumentParser:
        child = sub.add_parser(name, help=help_text, description=help_text)
        child.set_defaults(command=f"{CONTROL}.{target}", reads_env=name in READS_ENV)
        return child

    _run_commands(add)
    _agent_commands(add)
    _checkpoint_commands(add)
    _tool_commands(add)
    daemon = add("daemon", "agent_commands:cmd_daemon", "start, stop or check the daemon")
    daemon.add_argument("action", choices=("start", "stop", "status"))
    return parser


class Add(Protocol):
    """``add(name, "module:function", help)``: declares one command."""

    def __call__(self, name: str, target: str, help_text: str) -> argparse.ArgumentParser: ...


def _run_commands(add: Add) -> None:
    """Starting work: ``run``, ``resume``, ``web``, ``demo``."""
    run = add("run", "run_command:cmd_run", "start agents from a JSON array of specs")
    run.add_argument(
        "--specs", required=True, help="JSON array of spec objects, or @FILE to read it from FILE"
    )
    run.add_argument("--auto-accept", action="store_true", help="answer every checkpoint")
    run.add_argument("--wait", action="store_true", help="return when every agent has ended")
    run.add_argument(
        "--fresh",
        action="store_true",
        help="start in a new workspace even if the spec ran before (the old one is kept)",
    )
    run.add_argument(
        "--model-latency",
        metavar="SECONDS",
        help="the embedded model waits this long before each answer, as a real model would "
        "(overrides the specs' model_latency_s)",
    )
    run.add_argument(
        "--parallel",
        metavar="N",
        help="work up to N ready issues at once, each in its own worktree and sandbox "
        "(overrides the specs' parallel; 1 to 8)",
    )
    resume = add(
        "resume", "agent_commands:cmd_resume", "continue a stopped or failed agent where it ended"
    )
    resume.add_argument("agent")
    resume.add_argument("--wait", action="store_true", help="return when the agent has ended")

    web = add(
        "web",
        "web_command:cmd_web",
        "serve the TUI to a browser (behind a random token in the URL)",
    )
    web.add_argument("--host", default="localhost", help="address to listen on (localhost)")
    web.add_argument("--port", type=int, default=8765, help="port to listen on (8765)")
    web.add_argument(
        "--public-url", help="the URL browsers use, when it differs (a proxy, a tunnel's port)"
    )

    demo = add("demo", "demo_command:run_demo", "run the demo project on the embedded model")
    demo.add_argument("--dir", type=Path, help="where to put the demo (default: a new temp dir)")
    demo.add_argument("--auto-accept", action="store_true", help="answer every checkpoint")
    demo.add_argument("--wait", action="store_true", help="return when the agent has ended")
    demo.add_argument(
        "--web",
        action="store_true",
        help="the web demo: a one-page app the model checks in a headless browser",
    )
    demo.add_argument(
        "--gitlab", action="store_true", help="GitLab mode against a local GitLab (implies --wait)"
    )
    demo.add_argument(
        "--faults", type=float, default=0.0, metavar="RATE", help="share of faulted API requests"
    )
    demo.add_argument("--gitlab-url", metavar="URL", help="GitLab mode against this GitLab instead")
    demo.add_argument("--gitlab-project", metavar="GROUP/NAME", help="the project there")


def _agent_commands(add: Add) -> None:
    """Watching and steering agents: ``list``, ``status``, ``stop``, ``remove``, ``logs``,
    ``auto-accept``."""
    listing = add("list", "agent_commands:cmd_list", "list agents")
    listing.add_argument("--json", action="store_true", help="the agents as JSON")
    add(
        "metrics",
        "metrics_command:cmd_metrics",
        "print the agents' Prometheus metrics (from HARNESS_HOME; no daemon needed)",
    )
    status = add(
        "status",
        "status_command:cmd_status",
        "show one agent (without AGENT: every agent and their total)",
    )
    status.add_argument("agent", nargs="?")
    status.add_argument("--json", action="store_true", help="the agent(s) as JSON")
    stop = add("stop", "agent_commands:cmd_stop", "stop an agent (harness resume continues it)")
    stop.add_argument("agent")
    remove = add(
        "remove", "agent_commands:cmd_remove", "forget an ended agent (its workspace is kept)"
    )
    which = remove.add_mutually_exclusive_group(required=True)
    which.add_argument("agent", nargs="?")
    which.add_argument(
        "--finished", action="store_true", help="forget every done, failed or stopped agent"
    )
    logs = add("logs", "agent_commands:cmd_logs", "print the end of an agent's log")
    logs.add_argument("agent")
    logs.add_argument(
        "-n",
        "--lines",
        type=line_count,
        default=100,
        metavar="N",
        help="how many lines (default 100)",
    )
    logs.add_argument(
        "-f", "--follow", action="store_true", help="keep printing new lines until the agent ends"
    )
    auto = add("auto-accept", "agent_commands:cmd_auto_accept", "set an agent's auto-accept rules")
    auto.add_argument("agent")
    auto.add_argument(
        "mode",
        metavar="on|off|TYPE=approve|ask,…",
        help="on, off, or per checkpoint type (default= for the others), e.g. "
        "issue_closure=ask,default=approve; entries change the rules in force",
    )


def _checkpoint_commands(add: Add) -> None:
    """Answering: ``checkpoint``, ``mr``, ``approve``, ``reject``."""
    checkpoint = add(
        "checkpoint",
        "checkpoint_commands:cmd_checkpoint",
        "show the checkpoint waiting for a decision",
    )
    checkpoint.add_argument("agent")
    shown = checkpoint.add_mutually_exclusive_group()
    shown.add_argument(
        "--full",
        action="store_true",
        help="add the unified diff (issue_closure, enrichment_scope…), escaped",
    )
    shown.add_argument("--json", action="store_true", help="the checkpoint as JSON")
    mr = add(
        "mr",
        "mr_command:cmd_mr",
        "show the agent's merge request (file mode: its description and where it is stored)",
    )
    mr.add_argument("agent")
    approve = add("approve", "answer_commands:cmd_approve", "approve the waiting checkpoint")
    approve.add_argument("agent")
    approve.add_argument(
        "--choice",
        help="issue iid(s), a regression action, a budget action (raise[:USD]), at "
        "issue_closure a choice per flagged file (approve=PATH;exclude=PATH, PATH * for the rest), "
        "or at spec_to_issues what issues depend on (depends=3:1,2;4:)",
    )
    approve.add_argument("--reason", help="a note recorded with the decision")
    approve.add_argument("--checkpoint", metavar="ID", help="answer only this checkpoint")
    reject = add("reject", "answer_commands:cmd_reject", "reject the waiting checkpoint")
    reject.add_argument("agent")
    reject.add_argument("--reason", help="feedback for the next attempt")
    reject.add_argument("--checkpoint", metavar="ID", help="answer only this checkpoint")


def _tool_commands(add: Add) -> None:
    """Looking back and measuring: ``trace``, ``replay``, ``eval``, ``policy``."""
    trace = add(
        "trace",
        "trace_commands:cmd_trace",
        "show an agent's trace: sessions, requests, tools, gates",
    )
    trace.add_argument("agent", help="an agent's name, or its workspace folder")
    trace.add_argument("--session", type=int, metavar="N", help="only session N")
    trace.add_argument("--json", action="store_true", help="the events as JSON lines")
    again = add(
        "replay",
        "replay_command:cmd_replay",
        "run a recorded session again against its recorded answers",
    )
    again.add_argument("agent", help="an agent's name, or its workspace folder")
    again.add_argument("--session", type=int, required=True, metavar="N")
    again.add_argument("--verbose", action="store_true", help="show the replayed session's log")

    evaluation = add(
        "eval",
        "eval_command:cmd_eval",
        "run the eval suite and write a report (Markdown and JSON)",
    )
    evaluation.add_argument(
        "--cases", type=Path, metavar="DIR", help="the cases' folder (default: the harness's own)"
    )
    evaluation.add_argument(
        "--case", action="append", metavar="NAME", help="only this case (repeat)"
    )
    evaluation.add_argument(
        "--model", metavar="NAME", help="the Claude model (default: CLAUDE_MODEL)"
    )
    evaluation.add_argument(
        "--embedded-only",
        action="store_true",
        help="only the cases the embedded model plays, even with an endpoint set",
    )
    evaluation.add_argument(
        "--report",
        type=Path,
        default=Path("eval-report"),
        metavar="STEM",
        help="write STEM.md and STEM.json (default: ./eval-report)",
    )
    evaluation.add_argument("--work", type=Path, metavar="DIR", help="where to lay the cases out")

    policy = add(
        "policy",
        "policy_command:cmd_policy_check_bash",
        "ask the command policy about commands",
    )
    actions = policy.add_subparsers(required=True, metavar="ACTION")
    check_bash = actions.add_parser(
        "check-bash",
        help="print allow or deny: REASON for a Bash command (exit 0 or 1), or judge "
        '{"cmd": ...} lines from stdin with --jsonl',
    )
    check_bash.add_argument("bash_command", metavar="COMMAND", nargs="?")
    check_bash.add_argument(
        "--project", metavar="DIR", help="the project the command runs in (default: here)"
    )
    check_bash.add_argument(
        "--jsonl",
        action="store_true",
        help='read {"cmd": "...", "cwd": "..."} lines on stdin, print one verdict a line',
    )
    sandbox = check_bash.add_mutually_exclusive_group()
    sandbox.add_argument(
        "--sandboxed",
        dest="sandboxed",
        action="store_true",
        default=True,
        help="judge as an agent in the OS sandbox would be (the default)",
    )
    sandbox.add_argument(
        "--unsandboxed",
        dest="sandboxed",
        action="store_false",
        help='judge as an agent whose spec says "sandbox": false (the strict rules)',
    )

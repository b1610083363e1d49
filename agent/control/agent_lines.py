"""How ``harness list`` and ``harness status`` show agents: one line each, and totals.

Pure text from the daemon's :class:`AgentInfo`, apart from the commands that fetch
it, so the columns are tested without a daemon. What a model wrote (a reason, a gap's
name) is escaped before it is shown.
"""

from __future__ import annotations

from agent.frontend.slot_lines import list_tag
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.coverage import gaps_line
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.protocol import AgentInfo
from common.schemas.spend import Spend
from common.untrusted_text import printable_line

#: The terminal width the list is laid out for: every column starts at the same place on
#: every row, and a failure's reason is cut to end within it.
WIDTH = 80
LIST_HEADER = f"{'AGENT':<10} {'STATUS':<8} {'EXIT':<10} {'MODE':<5} {'PHASE':<20} SPEC"
#: Where a row's continuation (a failure's reason) starts: under STATUS.
INDENT = " " * 11
#: Marks a short mode whose rules have exceptions (``harness status AGENT`` lists them).
EXCEPTIONS = "*"
LEGEND = f"{EXCEPTIONS} auto-accept with exceptions: `harness status AGENT` shows its rules"


def refused_line(count: int) -> str:
    """The daemon's refusals (agent sandboxes, their processes, other users), for a person."""
    return (
        f"the daemon refused {count} connection{'s' if count != 1 else ''} from agent processes "
        "or other users since it started (see daemon.log)"
    )


def short_mode(rules: AutoAcceptRules) -> str:
    """The MODE column, five characters at most: ``AUTO`` or ``HITL`` as the default
    answers, with :data:`EXCEPTIONS` when some types answer otherwise."""
    head = "AUTO" if rules.default == "approve" else "HITL"
    return head + (EXCEPTIONS if rules.types else "")


def one_line(info: AgentInfo) -> str:
    """One agent in the columns of :data:`LIST_HEADER`."""
    phase = info.phase.value if info.phase else "-"
    mode = short_mode(info.auto_accept_rules)
    waiting = f" [{info.pending_checkpoint.value}]" if info.pending_checkpoint else ""
    unsandboxed = "" if info.sandboxed else " [UNSANDBOXED]"
    gaps = gaps_line(info.coverage, info.set_aside)
    shown = f" [{printable_line(gaps)}]" if info.exit_state is ExitState.PARTIAL else ""
    return (
        f"{info.name:<10} {info.status.value:<8} {info.exit_state.value:<10} {mode:<5} "
        f"{phase:<20} {info.spec_file.name}{waiting}{list_tag(info.slots)}{unsandboxed}{shown}"
    )


def reason_line(info: AgentInfo) -> str | None:
    """Why a failed or stopped agent ended, under its row, cut to :data:`WIDTH`
    (``harness status AGENT`` has it whole); ``None`` for any other agent."""
    if info.status not in (AgentStatus.FAILED, AgentStatus.STOPPED):
        return None
    line = f"{INDENT}↳ {printable_line(info.reason or 'no reason recorded')}"
    return line if len(line) <= WIDTH else line[: WIDTH - 1] + "…"


def list_lines(agents: list[AgentInfo]) -> list[str]:
    """``harness list``: the header, a row per agent (a failure's reason under it) and,
    when a mode has exceptions, what :data:`EXCEPTIONS` means."""
    if not agents:
        return ["no agents"]
    lines = [LIST_HEADER]
    for info in agents:
        lines.append(one_line(info))
        reason = reason_line(info)
        if reason is not None:
            lines.append(reason)
    if any(info.auto_accept_rules.types for info in agents):
        lines.append(LEGEND)
    return lines


def exit_text(info: AgentInfo) -> str:
    """``partial: #3 set aside; 1 section uncovered: …`` or the exit state alone."""
    if info.exit_state is ExitState.PARTIAL:
        return f"partial: {printable_line(gaps_line(info.coverage, info.set_aside))}"
    return info.exit_state.value


def progress(info: AgentInfo) -> str:
    return f"{info.issues_closed} of {info.issues_total} issue(s) closed"


def status_table(agents: list[AgentInfo]) -> list[str]:
    """``harness status`` without an agent: one line per agent with its issues and spend,
    then the total of them all."""
    if not agents:
        return ["no agents"]
    lines = [one_line(info) + f"\n  {progress(info)}; {info.spend.line()}" for info in agents]
    total = Spend()
    for info in agents:
        total = total.plus(info.spend)
    closed = sum(info.issues_closed for info in agents)
    issues = sum(info.issues_total for info in agents)
    lines.append(
        f"total: {len(agents)} agent(s), {closed} of {issues} issue(s) closed; {total.line()}"
    )
    return lines

"""How ``harness list`` and ``harness status`` show agents: one line each, and totals.

Pure text from the daemon's :class:`AgentInfo`, apart from the commands that fetch
it, so the columns are tested without a daemon. What a model wrote (a reason, a gap's
name) is escaped before it is shown.
"""

from __future__ import annotations

from agent.control.slot_lines import list_tag
from common.schemas.coverage import gaps_line
from common.schemas.exit_status import ExitState
from common.schemas.protocol import AgentInfo
from common.schemas.spend import Spend
from common.untrusted_text import printable_line

LIST_HEADER = f"{'AGENT':<10} {'STATUS':<8} {'EXIT':<10} {'MODE'} {'PHASE':<20} SPEC"


def refused_line(count: int) -> str:
    """The daemon's refusals (agent sandboxes, their processes, other users), for a person."""
    return (
        f"the daemon refused {count} connection{'s' if count != 1 else ''} from agent processes "
        "or other users since it started (see daemon.log)"
    )


def one_line(info: AgentInfo) -> str:
    """One agent in the columns of :data:`LIST_HEADER`."""
    phase = info.phase.value if info.phase else "-"
    mode = info.auto_accept_rules.compact()
    waiting = f" [{info.pending_checkpoint.value}]" if info.pending_checkpoint else ""
    unsandboxed = "" if info.sandboxed else " [UNSANDBOXED]"
    gaps = gaps_line(info.coverage, info.set_aside)
    shown = f" [{printable_line(gaps)}]" if info.exit_state is ExitState.PARTIAL else ""
    return (
        f"{info.name:<10} {info.status.value:<8} {info.exit_state.value:<10} {mode} {phase:<20} "
        f"{info.spec_file.name}{waiting}{list_tag(info.slots)}{unsandboxed}{shown}"
    )


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

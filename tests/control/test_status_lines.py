"""``harness list`` and ``harness status``: a partial run names its gaps, and ``harness
status`` without an agent ends with the total of every agent."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from agent.control.agent_lines import exit_text, one_line, status_table
from agent.control.parser import build_parser
from common.schemas.agent_state import Phase
from common.schemas.coverage import SpecCoverage
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.protocol import AgentInfo
from common.schemas.spend import Spend

WORKSPACE = Path("/srv/p/.claude-agent/ws")


def info(name: str, exit_state: ExitState, **extra: object) -> AgentInfo:
    return AgentInfo.model_validate(
        {
            "name": name,
            "spec_file": Path("/srv/spec.md"),
            "project_dir": Path("/srv/p"),
            "workspace": WORKSPACE,
            "log_file": WORKSPACE / "logs" / "a.log",
            "pid": None,
            "status": AgentStatus.DONE,
            "phase": Phase.DONE,
            "auto_accept": True,
            "started_at": datetime(2026, 1, 15, tzinfo=UTC),
            "exit_state": exit_state,
            **extra,
        }
    )


GAPS = SpecCoverage(sections=["A", "Feature 3: truncate"], uncovered=["Feature 3: truncate"])


def test_a_partial_run_names_its_gaps_in_list_and_status() -> None:
    partial = info(
        "agent_1", ExitState.PARTIAL, coverage=GAPS.model_copy(update={"set_aside": [3]})
    )

    line = one_line(partial)

    assert line.split()[:3] == ["agent_1", "done", "partial"]
    assert line.endswith("spec.md [#3 set aside; 1 section uncovered: Feature 3: truncate]")
    assert exit_text(partial) == "partial: #3 set aside; 1 section uncovered: Feature 3: truncate"


def test_a_complete_run_shows_no_gaps() -> None:
    complete = info("agent_2", ExitState.COMPLETE, coverage=SpecCoverage(sections=["A"]))
    assert one_line(complete).endswith("spec.md")
    assert exit_text(complete) == "complete"


def test_a_gap_name_is_escaped_on_the_list_line() -> None:
    hostile = SpecCoverage(sections=["x"], uncovered=["x\x1b[2J\nAPPROVED"])
    line = one_line(info("agent_1", ExitState.PARTIAL, coverage=hostile))
    assert "\x1b" not in line and "\n" not in line


def test_status_without_an_agent_ends_with_the_total() -> None:
    one = Spend(tokens_in=100, tokens_out=10, cost_usd=0.25, sessions=2, session_s=3)
    two = Spend(tokens_in=50, tokens_out=5, cost_usd=0.5, sessions=1, session_s=1)
    agents = [
        info("agent_1", ExitState.COMPLETE, issues_closed=3, issues_total=3, spend=one),
        info("agent_2", ExitState.PARTIAL, issues_closed=1, issues_total=2, spend=two),
    ]

    lines = "\n".join(status_table(agents)).splitlines()

    assert lines[1] == f"  3 of 3 issue(s) closed; {one.line()}"
    assert lines[3] == f"  1 of 2 issue(s) closed; {two.line()}"
    assert lines[-1] == (
        "total: 2 agent(s), 4 of 5 issue(s) closed; 3 session(s), 150 tokens in "
        "(0 cache read, 0 cache write) / 15 out, $0.7500, 4.0 s"
    )
    assert status_table([]) == ["no agents"]


def test_status_takes_an_agent_or_none() -> None:
    parser = build_parser()
    assert parser.parse_args(["status"]).agent is None
    assert parser.parse_args(["status", "agent_1"]).agent == "agent_1"

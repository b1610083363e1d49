"""``harness list`` at 80 columns: aligned columns, a short mode, a failure's reason, JSON."""

from __future__ import annotations

import json

from agent.control.agent_lines import LEGEND, LIST_HEADER, WIDTH, list_lines, short_mode
from agent.control.json_output import agents_json, dumps, status_json
from common.schemas.agent_state import Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.protocol import AgentInfo
from common.schemas.spend import Spend
from tests.control.test_status_lines import info

EXCEPTIONS = AutoAcceptRules.model_validate(
    {"default": "approve", "issue_closure": "ask", "mr_review": "ask"}
)
REASON = "the project's test command cannot run: `pytest` is not installed in .venv " * 2


def agents() -> list[AgentInfo]:
    return [
        info(
            "agent_1",
            ExitState.CONTINUING,
            status=AgentStatus.RUNNING,
            phase=Phase.MR_PHASE_TRANSITION,
            auto_accept_rules=EXCEPTIONS,
        ),
        info(
            "agent_2",
            ExitState.FAILED,
            status=AgentStatus.FAILED,
            phase=Phase.FAILED,
            reason=REASON,
        ),
        info("agent_3", ExitState.COMPLETE, auto_accept_rules=AutoAcceptRules.on()),
    ]


def test_every_column_starts_where_its_header_does_within_80_columns() -> None:
    header, first, second, _reason, third, legend = list_lines(agents())

    assert header == LIST_HEADER
    for row in (first, second, third):
        assert len(row) <= WIDTH, row
        for column in ("STATUS", "EXIT", "MODE", "PHASE", "SPEC"):
            start = header.index(column)
            assert row[start - 1] == " " and row[start] != " ", (column, row)
    assert first.split()[3:5] == ["AUTO*", "mr_phase_transition"]
    assert legend == LEGEND


def test_a_failure_shows_its_reason_under_its_row_cut_to_80_columns() -> None:
    _, _, second, reason, _, _ = list_lines(agents())

    assert second.split()[:3] == ["agent_2", "failed", "failed"]
    assert reason.lstrip().startswith("↳ the project's test command cannot run")
    assert len(reason) == WIDTH and reason.endswith("…")


def test_the_short_mode_fits_its_column() -> None:
    assert short_mode(AutoAcceptRules.on()) == "AUTO"
    assert short_mode(AutoAcceptRules.off()) == "HITL"
    assert short_mode(EXCEPTIONS) == "AUTO*"
    assert short_mode(AutoAcceptRules.model_validate({"mr_review": "approve"})) == "HITL*"


def test_no_legend_without_exceptions_and_a_line_for_no_agents() -> None:
    assert LEGEND not in list_lines(agents()[2:])
    assert list_lines([]) == ["no agents"]


def test_the_json_holds_each_agent_whole_and_the_status_total() -> None:
    listed = json.loads(dumps(agents_json(agents())))
    assert [a["name"] for a in listed] == ["agent_1", "agent_2", "agent_3"]
    assert listed[1]["reason"] == REASON and listed[1]["status"] == "failed"
    assert listed[0]["auto_accept_rules"] == {
        "default": "approve",
        "issue_closure": "ask",
        "mr_review": "ask",
    }

    spent = Spend(tokens_in=10, cost_usd=0.5, sessions=1)
    total = status_json([info("agent_1", ExitState.COMPLETE, spend=spent, issues_total=2)])
    assert total["total"]["agents"] == 1 and total["total"]["issues_total"] == 2
    assert total["total"]["spend"]["cost_usd"] == 0.5


def test_the_json_is_ascii_only() -> None:
    hostile = info("agent_1", ExitState.FAILED, status=AgentStatus.FAILED, reason="\x1b[2J\u202e")
    assert dumps(agents_json([hostile])).isascii()

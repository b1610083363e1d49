"""``harness status`` and ``harness list`` show the issues worked in parallel."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from agent.control.main import _one_line
from agent.control.slot_lines import list_tag, since, status_lines
from agent.daemon.agent_view import _slots
from common.schemas.agent_state import AgentState
from common.schemas.exit_status import ExitState
from common.schemas.issue_slot import IssueSlot, SlotStep
from common.schemas.issue_work import IssueWork
from common.schemas.protocol import SlotInfo
from common.schemas.spend import Spend
from tests.control.test_status_lines import info

NOW = datetime(2026, 11, 26, 18, 0, tzinfo=UTC)


def slot(iid: int, step: SlotStep, minutes: float, **extra: object) -> SlotInfo:
    return SlotInfo.model_validate(
        {"iid": iid, "step": step, "started_at": NOW - timedelta(minutes=minutes), **extra}
    )


def test_each_slot_shows_its_issue_step_time_and_spend() -> None:
    slots = [
        slot(1, SlotStep.CODING, 2.5, spend=Spend(sessions=2, cost_usd=0.25)),
        slot(4, SlotStep.MERGING, 75, conflicts=1),
    ]

    lines = status_lines(slots, NOW)

    assert lines[0].startswith("  slot #1: coding, 2m 30s; ")
    assert Spend(sessions=2, cost_usd=0.25).line() in lines[0]
    assert lines[1].startswith("  slot #4: merging, 1h 15m; ")
    assert lines[1].endswith(", 1 merge conflict(s)")


def test_the_list_line_names_the_slots_and_nothing_without_them() -> None:
    agent = info("agent_1", ExitState.CONTINUING, slots=[slot(2, SlotStep.CLOSURE, 1)])

    assert "[slots: #2 closure]" in _one_line(agent)
    assert list_tag([]) == ""
    assert "slots" not in _one_line(info("agent_2", ExitState.CONTINUING))


def test_a_clock_behind_the_start_shows_no_negative_time() -> None:
    assert since(NOW + timedelta(seconds=5), NOW) == "0m 00s"


def test_the_daemon_reads_the_slots_from_the_state() -> None:
    started = NOW - timedelta(minutes=3)
    state = AgentState(
        issues={
            iid: IssueWork(
                iid=iid,
                slot=IssueSlot(
                    worktree=f"/w/{iid}", branch=f"b-{iid}", step=step, started_at=started
                ),
            )
            for iid, step in ((3, SlotStep.CLOSURE), (1, SlotStep.CODING))
        },
        issue_spend={1: Spend(sessions=1)},
    )

    shown = _slots(state)

    assert [(s.iid, s.step, s.spend.sessions) for s in shown] == [
        (1, SlotStep.CODING, 1),
        (3, SlotStep.CLOSURE, 0),
    ]
    assert all(s.started_at == started for s in shown)
    assert _slots(AgentState(issues={5: IssueWork(iid=5)})) == [], "one issue alone: no slot"

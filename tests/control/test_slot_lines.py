"""``harness status`` and ``harness list`` show the issues worked in parallel."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from agent.control.agent_lines import one_line
from agent.daemon.agent_view import _slots, build_agent_info
from agent.frontend.slot_lines import list_tag, since, status_lines
from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import CheckpointFile, IssueClosureCheckpoint
from common.schemas.daemon_state import AgentRecord
from common.schemas.exit_status import ExitState
from common.schemas.issue_slot import IssueSlot, SlotStep
from common.schemas.issue_work import IssueWork
from common.schemas.issues import TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import SlotInfo
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from tests.control.test_status_lines import info
from tests.tui import samples

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

    assert "[slots: #2 closure]" in one_line(agent)
    assert list_tag([]) == ""
    assert "slots" not in one_line(info("agent_2", ExitState.CONTINUING))


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


def test_the_daemon_names_each_slots_title_and_the_one_whose_checkpoint_waits(
    tmp_path: Path,
) -> None:
    """Real workspace files: the state's slots, the milestone's titles, a slot's pending
    closure; the agent view marks that slot, and the CLI says so on its line."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    files = WorkspaceFiles(workspace)
    spec = AgentSpec(spec_file=tmp_path / "s.md", project_dir=tmp_path, target_branch="main")
    record = AgentRecord(
        name="agent_1", spec=spec, workspace=workspace, log_file=tmp_path / "a.log", pid=os.getpid()
    )
    state = AgentState(
        issues={
            iid: IssueWork(
                iid=iid, slot=IssueSlot(worktree=f"/w/{iid}", branch=f"b-{iid}", step=step)
            )
            for iid, step in ((1, SlotStep.CODING), (3, SlotStep.CLOSURE))
        }
    )
    write_model(files.state, state)
    titles = [
        TrackedIssue(iid=1, title="Add slugify", description=""),
        TrackedIssue(iid=3, title="Wrap \x1b[2J [bold]text[/bold]\u202e", description=""),
    ]
    write_model(files.milestone, FileMilestone(title="m", issues=titles))
    closure = samples.issue_closure("issue_closure-issue3-2")
    assert isinstance(closure, IssueClosureCheckpoint)
    about_3 = closure.context.model_copy(update={"issue_iid": 3})
    write_model(files.checkpoint, CheckpointFile(closure.model_copy(update={"context": about_3})))

    shown = build_agent_info(record, alive=True).slots

    assert [(s.iid, s.title, s.waiting) for s in shown] == [
        (1, "Add slugify", False),
        (3, titles[1].title, True),
    ]
    lines = status_lines(shown, NOW)
    assert lines[2].endswith(" — ⏸ waiting for you") and lines[2].startswith("  slot #3: closure")
    assert lines[3] == "    Wrap \\x1b[2J [bold]text[/bold]<U+202E>"
    assert "waiting" not in lines[0]
    assert list_tag(shown) == " [slots: #1 coding, #3 closure ⏸]"
    assert [s.waiting for s in build_agent_info(record, alive=False).slots] == [False, False]

"""The auto-accept rules modal (A): a row per checkpoint type, keyboard only, at 80×24;
saving sends the rules to the daemon (which signs them), Esc sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import OptionList, Static

from common.paths import WorkspaceFiles
from common.schemas.agent_state import Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import CheckpointType, Decision
from common.schemas.daemon_state import AgentStatus
from common.workspace import checkpoints
from common.workspace.decisions import waits_for_person
from common.workspace.kinds import KINDS
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import dialog_for, make_app, status_text, wait_until, write_checkpoint
from tui.modals.auto_accept_rules import ROWS, AutoAcceptRulesScreen, row_text


async def test_a_person_sets_auto_except_closure_with_the_keyboard_at_80x24(
    workspace: Path,
) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("A")
        await wait_until(pilot, lambda: isinstance(app.screen, AutoAcceptRulesScreen), "modal")
        rows = app.screen.query_one(OptionList)
        assert rows.option_count == len(ROWS) == len(CheckpointType) + 1
        assert all(row.region.bottom <= 24 for row in app.screen.query("#rules *"))

        await pilot.press("space")  # the first row: the default, ask → approve
        closure = ROWS.index(CheckpointType.ISSUE_CLOSURE.value)
        for _ in range(closure):
            await pilot.press("down")
        await pilot.press("x")  # issue_closure: ask
        await pilot.press("s")

        await wait_until(
            pilot,
            lambda: "AUTO except issue_closure" in status_text(app),
            "the rules in the status bar",
        )
    assert link.calls == [("auto_accept", "agent_1=default=approve,issue_closure=ask")]


async def test_escape_changes_nothing(workspace: Path) -> None:
    app, link = make_app([agent_info("agent_1", workspace, auto_accept=True)])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("A")
        await wait_until(pilot, lambda: isinstance(app.screen, AutoAcceptRulesScreen), "modal")
        await pilot.press("space", "escape")
        await wait_until(pilot, lambda: app.screen is app.running, "the modal to close")
    assert link.calls == []


def test_each_row_says_its_answer_and_when_it_asks_anyway() -> None:
    rules = AutoAcceptRules.model_validate({"default": "approve", "issue_closure": "ask"})
    assert row_text(rules, "issue_closure").split()[:2] == ["issue_closure", "ask"]
    assert "asks if a change is flagged" in row_text(rules, "issue_closure")
    assert row_text(rules, "mr_phase_transition").split() == [
        "mr_phase_transition",
        "approve",
        "(default)",
    ]
    assert all(len(row_text(rules, key)) <= 70 for key in ROWS)  # inside the 76-wide box


@pytest.mark.parametrize(
    "kind", [CheckpointType.REGRESSION_APPROVAL, CheckpointType.BUDGET_REACHED]
)
def test_a_type_no_rule_answers_reads_ask_whatever_its_rule_says(kind: CheckpointType) -> None:
    """The rules approve everything, yet these still wait for a person: the row says so."""
    everything = AutoAcceptRules.on()
    named = AutoAcceptRules.model_validate({"default": "ask", kind.value: "approve"})
    for rules in (everything, named):
        row = row_text(rules, kind.value)
        assert row.split()[:3] == [kind.value, "ask", "always"], row
        assert "(default)" not in row and "approve" not in row


def test_the_types_said_to_always_ask_always_wait_for_a_person() -> None:
    """The modal's words come from the checkpoint kinds, and hold for a real checkpoint."""
    always = {kind for kind, rules in KINDS.items() if rules.always_asks}
    assert always == {CheckpointType.REGRESSION_APPROVAL, CheckpointType.BUDGET_REACHED}
    for kind in always:
        assert waits_for_person(samples.BUILDERS[kind]()), kind
    for kind, rules in KINDS.items():
        if not rules.asks_anyway:
            assert waits_for_person(samples.BUILDERS[kind]()) == [], kind


async def test_toggling_a_type_no_rule_answers_changes_nothing_and_says_why(
    workspace: Path,
) -> None:
    app, link = make_app([agent_info("agent_1", workspace)])
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("A")
        await wait_until(pilot, lambda: isinstance(app.screen, AutoAcceptRulesScreen), "modal")
        screen = app.screen
        assert isinstance(screen, AutoAcceptRulesScreen)
        for _ in range(ROWS.index(CheckpointType.REGRESSION_APPROVAL.value)):
            await pilot.press("down")
        await pilot.press("space", "a")
        notice = screen.query_one("#rules-notice", Static)
        await wait_until(pilot, lambda: "always asks" in str(notice.content), "the reason")
        assert screen.rules == AutoAcceptRules.off()
        assert str(notice.content) == "regression_approval always asks a person: no rule answers it"
        await pilot.press("s")
        await wait_until(pilot, lambda: app.screen is app.running, "the modal to close")
    assert link.calls == []


async def test_a_dialog_closed_by_a_rule_s_decision_names_the_rule(workspace: Path) -> None:
    """Where the TUI says who decided, it says which rule did (a timeout's, here)."""
    checkpoint = samples.mr_phase_transition()
    write_checkpoint(workspace, checkpoint)
    waiting = agent_info(
        "agent_1",
        workspace,
        status=AgentStatus.WAITING,
        phase=Phase.MR_PHASE_TRANSITION,
        pending=checkpoint.type,
    )
    app, _ = make_app([waiting])
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog")
        ruled = Decision(approved=True, decided_by="timeout", rule="timeout after 5 min: default")
        checkpoints.answer(WorkspaceFiles(workspace), checkpoint.id, ruled)
        said = "was decided by timeout (timeout after 5 min: default)"
        await wait_until(
            pilot,
            lambda: any(said in str(note.message) for note in app._notifications),
            "the toast naming the rule",
        )

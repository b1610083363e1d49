"""Each decision on the tracker once: its words, the note, the file tracker, kills and failures.

A real run (file-only mode) whose desk asks and a client answers, as a person would;
the file tracker's real milestone file, corrupted and repaired for a failing write.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from agent.core.run.decision_record import DecisionRecorder, choice_words, record_of
from agent.core.stages.coding import notes_for_model
from agent.tracker.decision_text import (
    MILESTONE_HEADING,
    milestone_marker,
    note,
    with_milestone_line,
)
from agent.tracker.file import FileTracker
from agent.tracker.redacting import RedactingTracker
from common.atomic import read_model
from common.schemas.checkpoint import (
    AnyDecision,
    BudgetAction,
    BudgetDecision,
    Checkpoint,
    CheckpointType,
    ClosureDecision,
    Decision,
    EnrichmentDecision,
    MergeConflictAction,
    MergeConflictDecision,
    RegressionAction,
    RegressionDecision,
    SelectionDecision,
)
from common.schemas.decision_record import DecisionRecord
from common.schemas.issues import IssueNote, TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.outbound import FileChoice
from common.workspace import answer, checkpoints
from tests.core.checkpoint_samples import closure, mr_transition
from tests.core.runs import logged, make_run

WHO = "cli:alice"


@pytest.mark.parametrize(
    ("decision", "words"),
    [
        (Decision(approved=True, decided_by=WHO), "approve"),
        (Decision(approved=False, decided_by=WHO), "reject"),
        (
            EnrichmentDecision(approved=True, decided_by=WHO, selected=[2, 3]),
            "approve: issues #2, #3",
        ),
        (EnrichmentDecision(approved=True, decided_by=WHO), "approve: no issue"),
        (SelectionDecision(approved=True, decided_by=WHO, issue_iid=4), "approve: issue #4"),
        (
            RegressionDecision(approved=True, decided_by=WHO, action=RegressionAction.DEFER),
            "approve: defer",
        ),
        (
            BudgetDecision(approved=True, decided_by=WHO, action=BudgetAction.RAISE, cost_usd=2.5),
            "approve: raise ($2.5)",
        ),
        (BudgetDecision(approved=False, decided_by=WHO), "reject: stop"),
        (
            MergeConflictDecision(
                approved=True, decided_by=WHO, action=MergeConflictAction.SET_ASIDE
            ),
            "approve: set_aside",
        ),
        (
            ClosureDecision(
                approved=True,
                decided_by=WHO,
                files={"ci\x1b[2J.yml": FileChoice.EXCLUDE, "a.py": FileChoice.APPROVE},
            ),
            "approve: files `ci\\x1b[2J.yml`=exclude, `a.py`=approve",
        ),
    ],
)
def test_a_decision_in_words(decision: AnyDecision, words: str) -> None:
    assert choice_words(decision) == words


def decided(checkpoint: Checkpoint, **fields: object) -> Checkpoint:
    values: dict[str, object] = {"approved": True, "decided_by": WHO} | fields
    kind = ClosureDecision if checkpoint.type is CheckpointType.ISSUE_CLOSURE else Decision
    decision: AnyDecision = kind.model_validate(values)
    return checkpoints.decided(checkpoint, decision)


def test_the_record_of_a_closure_names_its_issue_who_and_the_rule() -> None:
    at = datetime(2026, 11, 26, 21, 0, 5, tzinfo=UTC)
    found = record_of(
        decided(closure("issue_closure-4"), rule="auto-accept: default=approve", decided_at=at)
    )
    assert found == DecisionRecord(
        checkpoint_id="issue_closure-4",
        checkpoint_type=CheckpointType.ISSUE_CLOSURE,
        issue=1,
        approved=True,
        choice="approve",
        decided_by=WHO,
        rule="auto-accept: default=approve",
        decided_at=at,
    )
    run_level = record_of(decided(mr_transition("mr_phase_transition-9")))
    assert run_level.issue is None and run_level.rule is None


def hostile_record() -> DecisionRecord:
    return DecisionRecord(
        checkpoint_id="issue_closure-4",
        checkpoint_type=CheckpointType.ISSUE_CLOSURE,
        issue=1,
        approved=False,
        choice="reject",
        decided_by=WHO,
        reason="no\n/close\n<!-- harness:key=note-x --> a | b \x1b]0;t\x07",
        decided_at=datetime(2026, 11, 26, 21, 0, 5, tzinfo=UTC),
    )


def test_the_note_keeps_a_reason_on_its_line_and_opens_no_comment_or_command() -> None:
    text = note(hostile_record())
    assert "**Checkpoint decision: issue_closure** (`issue_closure-4`)" in text
    assert "- Decided by: cli:alice" in text
    assert "- Rule: none (a person answered)" in text
    assert "- When: 2026-11-26 21:00:05 UTC" in text
    reason = next(line for line in text.splitlines() if line.startswith("- Reason: "))
    assert reason == (
        "- Reason: no\\n/close\\n&lt;!-- harness:key=note-x --> a \\| b \\x1b]0;t\\x07"
    )
    assert not any(line.startswith("/") for line in text.splitlines())
    assert "<" not in text and "\x1b" not in text


def test_the_milestone_line_is_added_once_under_its_heading() -> None:
    record = hostile_record()
    once = with_milestone_line("From spec.md", record)
    assert once.startswith(f"From spec.md\n\n{MILESTONE_HEADING}\n- 2026-11-26 21:00:05 UTC")
    assert once.count(milestone_marker(record.checkpoint_id)) == 1
    assert with_milestone_line(once, record) == once
    other = record.model_copy(update={"checkpoint_id": "mr_review-12"})
    twice = with_milestone_line(once, other)
    assert twice.count(MILESTONE_HEADING) == 1 and twice.startswith(once.rstrip())


async def test_a_decision_answered_at_the_desk_is_in_the_milestone_file_once(
    tmp_path: Path,
) -> None:
    run = make_run(tmp_path)
    await run.tracker.ensure_milestone("spec", "")

    async def build(checkpoint_id: str) -> Checkpoint:
        return mr_transition(checkpoint_id)

    asked = asyncio.create_task(run.desk.ask(CheckpointType.MR_PHASE_TRANSITION, build))
    for _ in range(400):
        if checkpoints.pending(run.files) is not None:
            break
        await asyncio.sleep(0.025)
    await asyncio.to_thread(answer.reject, run.files.root, "not yet | later")
    await asyncio.wait_for(asked, 10)

    kept = read_model(run.files.milestone, FileMilestone).decisions
    assert [(d.checkpoint_id, d.choice, d.reason) for d in kept] == [
        ("mr_phase_transition-0", "reject", "not yet | later")
    ]
    assert kept[0].decided_by.startswith("cli:") and kept[0].rule is None
    assert run.state.decisions_on_tracker == ["mr_phase_transition-0"]
    recorder = run.desk.recorder
    assert recorder is not None
    assert await recorder.catch_up() == 0  # nothing new
    run.store.state.decisions_on_tracker.clear()  # a kill before the state was written
    assert await recorder.catch_up() == 1
    assert len(read_model(run.files.milestone, FileMilestone).decisions) == 1


async def test_decisions_before_the_milestone_wait_for_it_in_order(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    recorder = run.desk.recorder
    assert recorder is not None
    checkpoints.record(run.files, decided(mr_transition("project_verification-0")))
    checkpoints.record(run.files, decided(closure("issue_closure-3")))
    assert await recorder.catch_up() == 0
    assert not run.files.milestone.exists() and run.state.decisions_on_tracker == []

    await run.tracker.ensure_milestone("spec", "")
    assert await recorder.catch_up() == 2
    kept = read_model(run.files.milestone, FileMilestone).decisions
    assert [(d.checkpoint_id, d.issue) for d in kept] == [
        ("project_verification-0", None),
        ("issue_closure-3", 1),
    ]


async def test_a_failing_tracker_write_loses_no_decision(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    await run.tracker.ensure_milestone("spec", "")
    good = run.files.milestone.read_text()
    run.files.milestone.write_text("{ not json")  # every write to the tracker fails now
    checkpoints.record(run.files, decided(closure("issue_closure-3")))
    recorder = run.desk.recorder
    assert recorder is not None
    assert await recorder.catch_up() == 0
    line = next(x for x in logged(run).splitlines() if "not written on the tracker" in x)
    assert "decision issue_closure-3 not written on the tracker yet (" in line
    assert run.state.decisions_on_tracker == []

    run.files.milestone.write_text(good)  # the tracker is back
    checkpoints.record(run.files, decided(mr_transition("mr_phase_transition-5")))
    assert await recorder.catch_up() == 2  # the failed one first, then the new one
    kept = read_model(run.files.milestone, FileMilestone).decisions
    assert [d.checkpoint_id for d in kept] == ["issue_closure-3", "mr_phase_transition-5"]


async def test_the_redacting_tracker_takes_secrets_out_of_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "milestone.json"
    tracker = RedactingTracker(FileTracker(path), lambda text: text.replace("s3cret", "[secret]"))
    assert await tracker.record_decision(hostile_record()) is None  # no milestone yet
    await tracker.ensure_milestone("spec", "")
    record = hostile_record().model_copy(update={"reason": "token s3cret\nnext"})
    assert await tracker.record_decision(record) == "milestone file"
    assert await tracker.record_decision(record) == "milestone file"
    kept = read_model(path, FileMilestone).decisions
    assert [d.reason for d in kept] == ["token [secret]\\nnext"]


def test_a_recorder_is_wired_to_every_run(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    assert isinstance(run.desk.recorder, DecisionRecorder)
    assert run.desk.recorder.tracker is run.tracker


def test_the_coding_session_never_reads_a_decision_note() -> None:
    """A decision note carries reasons the model is promised never to read."""
    record = IssueNote(kind="decision", body="- Reason: only for people")
    issue = TrackedIssue(
        iid=1,
        title="Parser",
        description="",
        notes=[IssueNote(kind="handoff", body="h"), record, IssueNote(kind="comment", body="c")],
    )
    assert notes_for_model(issue) == "[handoff] h\n\n[comment] c"
    alone = issue.model_copy(update={"notes": [record]})
    assert notes_for_model(alone) == "(none)"

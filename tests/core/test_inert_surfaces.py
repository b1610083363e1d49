"""Each surface where the harness presents the model's words as part of its own Markdown
makes them inert and quoted: the decision records (choice and milestone markers), the
merge request's lists, the set-aside note and the handoff note."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from agent.core.issue.seat import Seat
from agent.core.run.decision_record import choice_words
from agent.core.session.tools import Handoff
from agent.core.stages.aside import set_aside
from agent.core.stages.coding import _handoff_note
from agent.core.stages.merge_request import _describe
from agent.tracker.decision_text import (
    MILESTONE_HEADING,
    has_milestone_line,
    milestone_marker,
    note,
    with_milestone_line,
)
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import CheckpointType, ClosureDecision
from common.schemas.decision_record import DecisionRecord
from common.schemas.gates import TestRun
from common.schemas.issue_work import IssueWork
from common.schemas.issues import SET_ASIDE_LABEL, IssueDraft, TrackedIssue
from common.schemas.outbound import FileChoice
from tests.core.runs import make_run, sh_git
from tests.e2e.hostile_text import HOSTILE_TITLE, rendered

EVIL = "@all ![p](http://evil.example/p.png) <img src=http://evil.example/p.png> #1 !2 ~x"


def outside_code(markdown: str) -> str:
    """What of ``markdown``, rendered, is not inside a code span or block."""
    shown = rendered(markdown)
    return re.sub(r"<code>.*?</code>", "", shown, flags=re.S)


def assert_inert(markdown: str) -> None:
    shown = rendered(markdown)
    assert "<img" not in shown and "<a " not in shown, shown
    outside = outside_code(markdown)
    assert "evil.example" not in outside and "@all" not in outside, outside


def test_a_decision_note_quotes_the_models_file_names() -> None:
    decision = ClosureDecision(
        approved=True,
        decided_by="cli:alice",
        files={f"ci/{EVIL}.yml".replace("/p.png", ""): FileChoice.EXCLUDE},
    )
    record = DecisionRecord(
        checkpoint_id="issue_closure-4",
        checkpoint_type=CheckpointType.ISSUE_CLOSURE,
        issue=1,
        approved=True,
        choice=choice_words(decision),
        decided_by="cli:alice",
        decided_at=datetime(2026, 11, 26, 21, 0, 5, tzinfo=UTC),
    )
    text = note(record)
    assert_inert(text)
    assert "- Decision: approve: files `ci/@all" in text


def test_a_marker_counts_only_at_the_end_of_a_line_of_the_decisions_section() -> None:
    forged = milestone_marker("issue_closure-9")
    record = DecisionRecord(
        checkpoint_id="issue_closure-4",
        checkpoint_type=CheckpointType.ISSUE_CLOSURE,
        approved=True,
        choice=f"approve: files `{forged}`=approve",
        decided_by="cli:alice",
        decided_at=datetime(2026, 11, 26, 21, 0, 5, tzinfo=UTC),
    )
    description = with_milestone_line(f"From the spec {forged}", record)
    assert forged in description, "the forged marker is there, as text"
    assert not has_milestone_line(description, "issue_closure-9")
    assert has_milestone_line(description, "issue_closure-4")
    assert description.count(MILESTONE_HEADING) == 1


async def test_the_merge_requests_lists_quote_titles_and_subjects(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    sh_git(project, "checkout", "-q", "-b", "feature")
    sh_git(project, "commit", "-q", "--allow-empty", "-m", f"feat(#1): {EVIL}")
    issues = [
        TrackedIssue(iid=1, title=HOSTILE_TITLE, description="", state="closed"),
        TrackedIssue(iid=2, title=EVIL, description="", labels=[SET_ASIDE_LABEL]),
    ]
    with run.store.editing() as state:
        state.accepted_regressions = [f"tests/test_x.py::test_{EVIL}"]
        state.last_test_run = TestRun(
            command="pytest", exit_code=0, duration_s=1.0, summary=f"1 passed {EVIL}"
        )

    text = await _describe(run, "A summary.", issues)

    assert_inert(text)
    for listed in ("- Closes #1: `Add half @all", "- #2: `@all", "- Deferred regression: `tests/"):
        assert listed in text, listed
    assert f"`feat(#1): {EVIL}`" in text


async def test_the_set_aside_note_fences_the_feedback_and_the_output(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    await run.tracker.ensure_milestone("m", "")
    await run.tracker.create_issues([IssueDraft(title="Add half", summary="s")])
    output = f"FAILED\n```\n{EVIL}\n```\n## Verification\n- 999 passed"
    with run.store.editing() as state:
        state.phase = Phase.CODING
        state.issue = IssueWork(
            iid=1,
            feedback=f"The previous session claimed: done {EVIL}\n```\n## Forged",
            tests=TestRun(
                command="pytest", exit_code=1, duration_s=1.0, summary=EVIL, output_tail=output
            ),
        )

    await set_aside(run, 1, "issue #1 is not done after 3 session(s)", Seat(run))

    (issue,) = await run.tracker.list_issues()
    (body,) = [n.body for n in issue.notes if "Set aside" in n.body]
    assert_inert(body)
    headings = re.findall(r"<h[1-6]>(.*?)</h[1-6]>", rendered(body))
    assert headings == [
        "Set aside for a person",
        "Why the harness did not accept it",
        "Last gate run",
        "Spend",
    ], "the feedback and the output add no section of their own"


def test_the_handoff_note_quotes_the_last_commits_subject_and_the_items() -> None:
    handoff = Handoff(issue_iid=1, gotchas=[EVIL], next_steps=[f"ping {EVIL}"])
    text = _handoff_note(f"0123abc feat(#1): {EVIL}", handoff, [f"notes/{EVIL}.md"])
    assert_inert(text)
    assert "Last commit: `0123abc feat(#1): @all" in text

"""merge_conflict: its decisions (default redo, reject pauses, a choice of action), its
schema's rule (an approve names an offered action, a reject names none), and what a person
is shown: the issue, the conflicted files and the combined diff, escaped."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from common.errors import CheckpointError
from common.schemas.checkpoint import (
    CheckpointAdapter,
    DiffExcerpt,
    MergeConflictAction,
    MergeConflictCheckpoint,
    MergeConflictDecision,
)
from common.workspace.decisions import (
    choice_decision,
    default_decision,
    reject_decision,
    waits_for_person,
)
from common.workspace.diff_text import diff_lines, review_diff, split_files
from common.workspace.kinds import KINDS, kind_of
from common.workspace.render import render_checkpoint
from tests.core.checkpoint_samples import conflict

HOSTILE_NAME = "src/\x1b[2Jok\u202eyp.py"
"""A file name a session could create: it clears the screen and reverses the text after it."""
HOSTILE_LINE = "+ x = 1  # \x1b]0;pwned\x07\u2066[harness] APPROVED\u2069"
RAW = ("\x1b", "\x07", "\u202e", "\u2066", "\u2069")


def sample(**context: Any) -> MergeConflictCheckpoint:
    checkpoint = conflict()
    assert isinstance(checkpoint, MergeConflictCheckpoint)
    if not context:
        return checkpoint
    return checkpoint.model_copy(update={"context": checkpoint.context.model_copy(update=context)})


def test_the_default_is_redo_and_auto_accept_may_give_it() -> None:
    checkpoint = sample()
    decision = default_decision(checkpoint, "auto-accept")
    assert isinstance(decision, MergeConflictDecision)
    assert decision.approved and decision.action is MergeConflictAction.REDO
    assert waits_for_person(checkpoint) == []
    assert kind_of(checkpoint).approve_label(checkpoint) == "approve: redo"


def test_a_reject_pauses_and_names_no_action() -> None:
    checkpoint = sample()
    decision = reject_decision(checkpoint, "tui:ada", "I look at it tomorrow")
    assert isinstance(decision, MergeConflictDecision)
    assert not decision.approved and decision.action is None
    assert decision.reason == "I look at it tomorrow"
    kind = KINDS[checkpoint.type]
    assert kind.reject_label(checkpoint) == "reject: pause the run"
    assert "the model never reads it" in kind.reason_use


@pytest.mark.parametrize("action", list(MergeConflictAction), ids=str)
def test_each_action_is_a_choice(action: MergeConflictAction) -> None:
    decision = choice_decision(sample(), f" {action.value} ", "cli:ada", "resolved by hand")
    assert isinstance(decision, MergeConflictDecision)
    assert decision.approved and decision.action is action
    assert decision.reason == "resolved by hand"


def test_an_unknown_or_unoffered_choice_is_refused_in_one_line() -> None:
    with pytest.raises(CheckpointError, match=r"unknown merge_conflict action 'merge'") as bad:
        choice_decision(sample(), "merge", "cli:ada", None)
    assert "\n" not in str(bad.value) and "redo|retry|set_aside" in str(bad.value)
    narrow = sample(actions=[MergeConflictAction.REDO, MergeConflictAction.SET_ASIDE])
    with pytest.raises(CheckpointError, match=r"retry is not offered here; choose redo\|set_aside"):
        choice_decision(narrow, "retry", "cli:ada", None)


def test_the_schema_holds_an_approve_to_an_action_and_a_reject_to_none() -> None:
    with pytest.raises(ValidationError, match="names an action"):
        MergeConflictDecision(approved=True, decided_by="cli:ada")
    with pytest.raises(ValidationError, match="pauses the run: no action"):
        MergeConflictDecision(
            approved=False, decided_by="cli:ada", action=MergeConflictAction.SET_ASIDE
        )
    narrow = sample(actions=[MergeConflictAction.REDO])
    data = narrow.model_dump(mode="json")
    data |= {"status": "decided", "decision": {"approved": True, "decided_by": "cli:ada"}}
    data["decision"]["action"] = "set_aside"
    with pytest.raises(ValidationError, match="set_aside is not offered"):
        CheckpointAdapter.validate_python(data)
    data["decision"]["action"] = "redo"
    read = CheckpointAdapter.validate_json(
        CheckpointAdapter.dump_json(CheckpointAdapter.validate_python(data))
    )
    assert isinstance(read, MergeConflictCheckpoint) and read.decision is not None
    assert read.decision.action is MergeConflictAction.REDO


def test_harness_checkpoint_shows_the_issue_files_actions_and_how_to_answer() -> None:
    text = render_checkpoint(sample(), agent="agent_1")
    assert "Issue #2: CLI" in text
    assert "Branch feature/p-issue-2 into feature/p: conflicted merge #2" in text
    assert "Worktree: /srv/w/issue-2" in text
    assert "  ✗ cli.py" in text
    assert "  set_aside: leave the issue for a person (needs-human), branch kept" in text
    assert "harness approve agent_1 --choice redo|retry|set_aside" in text
    assert "harness reject agent_1 --reason TEXT" in text


def test_the_conflicted_diff_is_split_by_file_and_says_how_to_see_it_whole() -> None:
    combined = (
        "diff --cc a.py\n--- a/a.py\n+++ b/a.py\n++<<<<<<< HEAD\n+ one\n++=======\n+ two\n"
        "diff --cc lib/b.py\n--- a/lib/b.py\n+++ b/lib/b.py\n++>>>>>>> x\n"
    )
    assert [item.path for item in split_files(combined)] == ["a.py", "lib/b.py"]
    cut = sample(diff=DiffExcerpt(stat="", text=combined, range="f...b", cut_at=8000))
    review = review_diff(cut)
    assert review is not None and [item.path for item in review.files] == ["a.py", "lib/b.py"]
    assert review.cut is not None and review.cut.endswith("git diff f...b")
    lines = diff_lines(cut)
    assert "--- file 2/2: lib/b.py (+1 −0)" in lines


def test_a_hostile_file_name_and_excerpt_are_shown_escaped() -> None:
    excerpt = (
        f"diff --cc {HOSTILE_NAME}\n--- a/{HOSTILE_NAME}\n+++ b/{HOSTILE_NAME}\n{HOSTILE_LINE}"
    )
    hostile = sample(
        conflicts=[HOSTILE_NAME],
        issue_title="CLI\x1b[31m\nfake line",
        diff=DiffExcerpt(stat="", text=excerpt, range="f...b"),
    )
    shown = "\n".join([render_checkpoint(hostile, agent="agent_1"), *diff_lines(hostile)])
    assert not any(char in shown for char in RAW)
    assert "  ✗ src/\\x1b[2Jok<U+202E>yp.py" in shown
    assert "Issue #2: CLI\\x1b[31m\\nfake line" in shown
    assert "\\x1b]0;pwned\\x07" in shown
    review = review_diff(hostile)
    assert review is not None
    assert not any(char in review.files[0].path + review.files[0].text for char in RAW)

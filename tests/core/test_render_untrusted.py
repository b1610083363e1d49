"""A rendered checkpoint (`harness checkpoint`, the log) shows model text escaped and marked."""

from __future__ import annotations

from typing import Any

import pytest

from agent.core.words import model_words
from common.schemas.checkpoint import Checkpoint, CheckpointFile
from common.schemas.gates import TestRun
from common.untrusted_text import MODEL_MARK
from common.workspace.render import render_checkpoint
from tests.core import checkpoint_samples

PAYLOAD = (
    "\x1b]0;pwned\x07\x1b[2J\x1b[32m[harness] APPROVED - press Y\x1b[0m\u202e\u200b\r\n[harness] ok"
)
RAW = ("\x1b", "\x07", "\u202e", "\u200b", "\r")


def poisoned(checkpoint: Checkpoint) -> tuple[Checkpoint, int]:
    """``checkpoint`` with PAYLOAD appended to every string the schema lets be anything."""
    data = checkpoint.model_dump(mode="json")
    count = 0

    def walk(node: Any, keep: Any) -> None:
        nonlocal count
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items):
            if isinstance(value, str):
                node[key] = value + PAYLOAD
                try:
                    CheckpointFile.model_validate(keep)
                    count += 1
                except ValueError:  # an enum or a pattern: not free text
                    node[key] = value
            elif isinstance(value, dict | list):
                walk(value, keep)

    walk(data, data)
    return CheckpointFile.model_validate(data).root, count


@pytest.mark.parametrize(
    "checkpoint", checkpoint_samples.every_type(), ids=lambda c: str(c.type.value)
)
def test_no_raw_control_bidi_or_zero_width_character_survives(checkpoint: Checkpoint) -> None:
    hostile, count = poisoned(checkpoint)
    assert count >= 5  # what_happened, to_decide, if_approved, if_rejected and the id at least
    text = render_checkpoint(hostile)
    assert not any(char in text for char in RAW)
    assert all(line.isprintable() for line in text.splitlines())
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in text
    # No line of the model's making starts a line of its own, unmarked.
    for line in text.splitlines():
        assert not line.startswith("[harness]"), line


def test_the_models_summary_is_a_marked_block() -> None:
    closure = checkpoint_samples.closure()
    assert closure.type.value == "issue_closure"
    context = closure.context.model_copy(
        update={
            "model_summary": f"Done.\n{PAYLOAD}",
            "files_changed": ["notes/\x1b[2Jevil\u202etxt.md"],
            "test_run": TestRun(command="pytest", exit_code=0, duration_s=1, summary="1 passed"),
        }
    )
    text = render_checkpoint(closure.model_copy(update={"context": context}))
    lines = text.splitlines()
    start = lines.index("Summary (the model's words):")
    assert lines[start + 1 : start + 4] == [
        f"  {MODEL_MARK} Done.",
        f"  {MODEL_MARK} \\x1b]0;pwned\\x07\\x1b[2J\\x1b[32m[harness] APPROVED - press Y"
        "\\x1b[0m<U+202E><U+200B>\\r",
        f"  {MODEL_MARK} [harness] ok",
    ]
    assert "Files: notes/\\x1b[2Jevil<U+202E>txt.md" in lines


def test_only_the_models_words_in_the_merge_request_are_marked_as_the_models() -> None:
    review = checkpoint_samples.mr_review()
    summary = model_words.section(
        "## Summary", "Line one\n\u2066hidden\u2069\n\n## Tests: 99 passed"
    )
    description = (
        f"{summary}\n\n"
        "## Traceability\n| issue | commit |\n|---|---|\n| #1 `Add\u202e x` | abc1234 |\n"
    )
    context = review.context.model_copy(
        update={"title": "Add\u202e gnp.exe", "description": description}
    )
    lines = render_checkpoint(review.model_copy(update={"context": context})).splitlines()
    assert "Title (the model's words): Add<U+202E> gnp.exe" in lines
    start = lines.index(f"Description (the harness's text; the model's words marked {MODEL_MARK}):")
    assert lines[start + 1 : start + 11] == [
        "  ## Summary (the agent's model wrote this; the harness has not verified it)",
        f"  {MODEL_MARK} Line one",
        f"  {MODEL_MARK} <U+2066>hidden<U+2069>",
        f"  {MODEL_MARK}",
        f"  {MODEL_MARK} ## Tests: 99 passed",
        "",
        "  ## Traceability",
        "  | issue | commit |",
        "  |---|---|",
        "  | #1 `Add<U+202E> x` | abc1234 |",
    ]

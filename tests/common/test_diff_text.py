"""A checkpoint's diff for review: split file by file, escaped, paged, never cut silently."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from common.schemas.checkpoint import (
    Checkpoint,
    DiffExcerpt,
    IssueClosureCheckpoint,
    IssueClosureContext,
)
from common.workspace.diff_text import (
    PAGE_LINES,
    FileDiff,
    cut_note,
    diff_lines,
    review_diff,
    split_files,
)
from tests.tui import samples

TWO_FILES = """\
diff --git a/calc/ops.py b/calc/ops.py
index 1111111..2222222 100644
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -1,3 +1,3 @@
 def add(a, b):
-    return a - b
+    return a + b
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
"""

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\u202e"


def closure(diff: str, **context: object) -> IssueClosureCheckpoint:
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    return base.model_copy(
        update={"context": base.context.model_copy(update={"diff": diff, **context})}
    )


def test_a_diff_is_split_at_each_file_with_its_counts() -> None:
    files = split_files(TWO_FILES)
    assert [(f.path, f.added, f.removed) for f in files] == [
        ("calc/ops.py", 1, 1),
        ("old.txt", 0, 1),
    ]
    assert files[0].heading() == "calc/ops.py (+1 −1)"
    assert "\n".join(f.text for f in files) == TWO_FILES.rstrip("\n")  # nothing dropped


@pytest.mark.parametrize(
    ("diff", "path"),
    [
        ("diff --git a/x y.py b/x y.py\nnew file mode 100644\n", "x y.py"),  # no ---/+++
        ("+++ b/lonely.py\n+x\n", "lonely.py"),  # text before any header is kept
        ("junk\n", "(text before the first file)"),
    ],
)
def test_the_name_comes_from_the_header_when_no_file_line_names_it(diff: str, path: str) -> None:
    (only,) = split_files(diff)
    assert only.path == path


def test_the_model_s_names_and_code_are_escaped() -> None:
    diff = f"diff --git a/a{HOSTILE}.py b/a{HOSTILE}.py\n+++ b/a{HOSTILE}\n.py\n+{HOSTILE}\n"
    (only,) = split_files(diff)
    assert only.path == "a\\x1b]0;pwned\\x07\\x1b[2J<U+202E>"
    assert "\x1b" not in only.text and "\u202e" not in only.text
    assert "+\\x1b]0;pwned\\x07" in only.text


def test_a_long_file_is_paged_and_a_short_one_is_one_page() -> None:
    long = FileDiff(
        path="big.py", text="\n".join(f"+{n}" for n in range(450)), added=450, removed=0
    )
    pages = long.pages()
    assert [len(page.splitlines()) for page in pages] == [PAGE_LINES, PAGE_LINES, 50]
    assert "\n".join(pages) == long.text
    assert FileDiff(path="s", text="+a\n+b", added=2, removed=0).pages() == ["+a\n+b"]


def test_a_cut_diff_is_said_with_the_command_that_shows_it_whole() -> None:
    assert cut_note(None, "git diff a..b") is None
    cut = review_diff(closure(TWO_FILES, diff_cut_at=20_000, diff_range="abc~1..def"))
    assert cut is not None and cut.cut == (
        "the diff is cut at 20000 characters here; see the whole in the project with: "
        "git diff abc~1..def"
    )
    older = closure(TWO_FILES, diff_cut_at=20_000)  # a checkpoint written before the range
    shown = review_diff(older)
    assert shown is not None and shown.cut is not None
    assert shown.cut.endswith(f"git show {older.context.commit_sha}")


@pytest.mark.parametrize("build", [samples.regression_approval, samples.mr_review])
def test_regression_and_mr_review_show_their_diff_when_they_carry_one(
    build: Callable[[], Checkpoint],
) -> None:
    bare = build()
    assert review_diff(bare) is None and diff_lines(bare) == []
    excerpt = DiffExcerpt(stat=" 2 files changed", text=TWO_FILES, range="main...HEAD", cut_at=5)
    context = bare.context.model_copy(update={"diff": excerpt})
    with_diff = bare.model_copy(update={"context": context})
    lines = diff_lines(with_diff)
    assert lines[0] == "DIFF (2 files changed):"
    assert "+    return a + b" in "\n".join(lines)
    assert lines[-1].endswith("git diff main...HEAD")


def test_the_cli_text_has_every_line_of_the_diff_a_heading_per_file_and_the_cut() -> None:
    lines = diff_lines(closure(TWO_FILES, diff_cut_at=9, diff_range="a~1..b"))
    assert lines[0] == "DIFF (2 files changed, 18 insertions(+)):"
    assert "--- file 1/2: calc/ops.py (+1 −1)" in lines
    assert "--- file 2/2: old.txt (+0 −1)" in lines
    text = "\n".join(lines)
    for line in TWO_FILES.splitlines():
        assert line in text
    assert lines[-1].startswith("CUT: the diff is cut at 9 characters")


def test_only_a_checkpoint_with_a_diff_has_diff_lines() -> None:
    assert diff_lines(samples.issue_selection()) == []
    assert review_diff(samples.budget_reached()) is None
    empty = diff_lines(closure(""))
    assert empty[1] == "  (empty)"


def test_an_old_checkpoint_file_without_the_new_fields_still_reads() -> None:
    data = closure(TWO_FILES).context.model_dump(mode="json")
    del data["diff_range"], data["diff_cut_at"]
    context = IssueClosureContext.model_validate(data)
    assert context.diff_cut_at is None and context.diff_range == ""

"""The issue_closure dialog and review screen show the issue's diff: file by file,
coloured, scrollable, escaped, and say where a stored diff was cut."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Static

from common.schemas.checkpoint import Checkpoint, DiffExcerpt, IssueClosureCheckpoint
from tests.tui import samples
from tests.tui.modal_app import ModalApp
from tui.widgets.diff_view import DiffView

SnapCompare = Callable[..., bool]
SMALL = (80, 24)

TEST_DIFF = """\
diff --git a/tests/test_slug.py b/tests/test_slug.py
new file mode 100644
--- /dev/null
+++ b/tests/test_slug.py
@@ -0,0 +1,4 @@
+from textkit.slug import slugify
+
+def test_accents() -> None:
+    assert slugify("Crème Brûlée") == "creme-brulee"
"""

HOSTILE = "\x1b]0;pwned\x07\x1b[2J[bold red]APPROVED[/]\u202e"


def two_file_closure(**context: object) -> IssueClosureCheckpoint:
    """The sample closure with a diff of two files (and ``context`` overrides)."""
    base = samples.issue_closure()
    assert isinstance(base, IssueClosureCheckpoint)
    update = {"diff": samples.DIFF + TEST_DIFF, **context}
    return base.model_copy(update={"context": base.context.model_copy(update=update)})


def shown_text(app: App[None]) -> str:
    """Every Static's text on the top screen (what a person can read, as plain text)."""
    return "\n".join(str(static.render()) for static in app.screen.query(Static).results(Static))


async def test_the_dialog_jumps_file_by_file_through_the_diff() -> None:
    app = ModalApp(two_file_closure(), review=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        headings = [str(h.render()) for h in view.query(".diff-file").results(Static)]
        assert headings == [
            "file 1/2 textkit/slug.py (+6 −0)",
            "file 2/2 tests/test_slug.py (+4 −0)",
        ]
        body = app.screen.query_one("#dialog-body")
        assert body.scroll_y == 0
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()
        assert view.current_file == 1
        second = body.scroll_y
        assert second > 0
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert view.current_file == 0 and body.scroll_y < second


async def test_a_cut_diff_says_so_and_how_to_see_the_whole() -> None:
    checkpoint = two_file_closure(diff_cut_at=20_000, diff_range="aaaa111~1..bbbb222")
    for review in (False, True):
        app = ModalApp(checkpoint, review=review)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            text = shown_text(app)
            assert "the diff is cut at 20000 characters here" in text
            assert "git diff aaaa111~1..bbbb222" in text


async def test_hostile_code_in_the_diff_is_shown_escaped_never_as_markup() -> None:
    hostile = f"diff --git a/x{HOSTILE}.py b/x{HOSTILE}.py\n+++ b/x{HOSTILE}.py\n+{HOSTILE}\n"
    app = ModalApp(two_file_closure(diff=hostile), review=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        heading = str(view.query(".diff-file").results(Static).__next__().render())
        assert heading.startswith("file 1/1 x\\x1b]0;pwned\\x07\\x1b[2J[bold red]APPROVED[/]")
        assert "<U+202E>" in heading
        page = view.review.files[0].text  # what the page draws
        assert "\x1b" not in page and "\u202e" not in page and "+\\x1b]0;pwned" in page
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert view.current_file == 0


def test_snapshot_closure_dialog_with_a_diff_80x24(snap_compare: SnapCompare) -> None:
    async def to_the_diff(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("right_square_bracket")
        await pilot.pause()

    app = ModalApp(two_file_closure(), review=False)
    assert snap_compare(app, terminal_size=SMALL, run_before=to_the_diff)


def test_snapshot_closure_review_with_a_diff_80x24(snap_compare: SnapCompare) -> None:
    async def to_the_second_file(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("right_square_bracket", "right_square_bracket")
        await pilot.pause()

    app = ModalApp(
        two_file_closure(diff_cut_at=20_000, diff_range="1304a2b~1..1304a2b"), review=True
    )
    assert snap_compare(app, terminal_size=SMALL, run_before=to_the_second_file)


@pytest.mark.parametrize("build", [samples.regression_approval, samples.mr_review])
async def test_regression_and_mr_review_show_their_diff_in_dialog_and_review(
    build: Callable[[], Checkpoint],
) -> None:
    bare = build()
    excerpt = DiffExcerpt(stat=" 2 files changed", text=samples.DIFF + TEST_DIFF, range="m...HEAD")
    context = bare.context.model_copy(update={"diff": excerpt})
    checkpoint = bare.model_copy(update={"context": context})
    for review in (False, True):
        app = ModalApp(checkpoint, review=review)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            view = app.screen.query_one(DiffView)
            assert [item.path for item in view.review.files] == [
                "textkit/slug.py",
                "tests/test_slug.py",
            ]
            await pilot.press("right_square_bracket")
            await pilot.pause()
            assert view.current_file == 0
    app = ModalApp(bare, review=True)  # a checkpoint without a diff: no view, no keys
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert not app.screen.query(DiffView)
        assert app.screen.check_action("diff_file", (1,)) is False


async def test_a_large_file_is_paged_and_every_line_is_there() -> None:
    lines = [f"+line_{n} = {n}" for n in range(450)]
    big = "diff --git a/big.py b/big.py\n+++ b/big.py\n" + "\n".join(lines) + "\n"
    app = ModalApp(two_file_closure(diff=big), review=False)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        view = app.screen.query_one(DiffView)
        (heading,) = [str(h.render()) for h in view.query(".diff-file").results(Static)]
        assert heading == "file 1/1 big.py (+450 −0) — 3 pages"
        rows = [row for page in view.pages() for row in page.plain_rows(80)]
        assert len(view.pages()) == 3
        assert rows[2:] == lines  # paged, nothing dropped

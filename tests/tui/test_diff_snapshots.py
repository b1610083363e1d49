"""Snapshots of a closure whose diff adds a 372-column line (a version, 300 blanks, then a
call): the dialog scrolled to the diff (its ⚠ line above), the review as it opens (the
diff first, the flag above the code) and the full screen, at 80×24 and 160×48. In each
the call after the blanks is on screen.

After an intended change: ``.venv/bin/pytest tests/tui/test_diff_snapshots.py
--snapshot-update``, then look at the SVGs in ``tests/tui/__snapshots__/``.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.pilot import Pilot

from tests.tui.modal_app import ModalApp
from tests.tui.test_diff_whole import padded_closure

SnapCompare = Callable[..., bool]
SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((160, 48), id="160x48")]


async def to_the_first_file(pilot: Pilot[None]) -> None:
    await pilot.pause()
    await pilot.press("right_square_bracket")
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES)
def test_closure_dialog_with_a_372_column_line(
    snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    app = ModalApp(padded_closure())
    assert snap_compare(app, terminal_size=size, run_before=to_the_first_file)


@pytest.mark.parametrize("size", SIZES)
def test_closure_review_with_a_372_column_line(
    snap_compare: SnapCompare, size: tuple[int, int]
) -> None:
    app = ModalApp(padded_closure(), review=True)  # as it opens: the diff comes first
    assert snap_compare(app, terminal_size=size)


def test_closure_diff_full_screen_at_80x24(snap_compare: SnapCompare) -> None:
    async def full_screen(pilot: Pilot[None]) -> None:
        await pilot.pause()
        await pilot.press("f")
        await pilot.pause()

    app = ModalApp(padded_closure())
    assert snap_compare(app, terminal_size=(80, 24), run_before=full_screen)

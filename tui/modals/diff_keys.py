"""The keys of a diff, the same wherever one is shown (dialog, review, full screen).

``]`` and ``[`` jump to the next and previous file; ``f`` shows the diff full screen;
``p`` hands it to the person's pager (:mod:`tui.services.diff_pager`), the TUI
suspended meanwhile; refused in one line where there is no terminal of the person's
(``harness web``, where the TUI runs in a browser).
"""

from __future__ import annotations

from textual.app import App, SuspendNotSupported
from textual.binding import Binding, BindingType

from common.workspace.diff_text import ReviewDiff
from tui.services.diff_pager import NO_TERMINAL, run_pager

#: ``]`` and ``[``, for every screen that shows a diff.
FILE_KEYS: list[BindingType] = [
    Binding("right_square_bracket", "diff_file(1)", "Next file"),
    Binding("left_square_bracket", "diff_file(-1)", "Prev file", show=False),
]

#: What the heading of a diff says about its keys.
KEYS_TEXT = "] [ files, f full screen, p pager"


def view_keys(*, both_cases: bool) -> list[BindingType]:
    """``f`` (full screen) and ``p`` (pager): in both cases on the dialogs (as their other
    keys), lower case only on a review, where an upper-case letter starts a typed reason."""
    full, pager = ("f,F", "p,P") if both_cases else ("f", "p")
    # Not in the footer (at 80 columns it would push out ? Help and q Quit): the diff's
    # heading names them, and the help and the command palette list them.
    return [
        Binding(full, "diff_full", "Diff full screen", show=False),
        Binding(pager, "diff_pager", "Diff in your pager", show=False),
    ]


def hand_to_pager(app: App[object], review: ReviewDiff) -> str | None:
    """Suspend ``app``, show ``review`` in the pager, resume; ``None`` when all went
    well, else the one line to show (no terminal here, or the pager failed)."""
    if app.is_web:
        return NO_TERMINAL
    try:
        with app.suspend():
            return run_pager(review)
    except SuspendNotSupported:  # a headless or web driver: no terminal to give away
        return NO_TERMINAL

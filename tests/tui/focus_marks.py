"""Whether a focused widget looks different from an unfocused one on a 16-colour terminal.

Each cell is drawn as the compositor draws it, then its colours are brought down to the 16
standard terminal colours (as ``TEXTUAL_COLOR_SYSTEM=standard`` or a 16-colour terminal
would show them) with its text attributes kept. A focus that only shifts a shade (a tint
of the background) folds into the same colour there, and is invisible.
"""

from __future__ import annotations

from typing import Any

from rich.color import ColorSystem
from rich.style import Style
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

#: A focus must change at least this many cells: a text cursor alone is one.
MIN_CELLS = 3

Cell = tuple[str, tuple[object, ...]]


def cell_key(style: Style | None) -> tuple[object, ...]:
    """A cell's look on a 16-colour terminal."""
    style = style or Style()
    colour = style.color.downgrade(ColorSystem.STANDARD).name if style.color else None
    back = style.bgcolor.downgrade(ColorSystem.STANDARD).name if style.bgcolor else None
    marks = (style.bold, style.dim, style.italic, style.underline, style.reverse)
    return (colour, back, *(bool(mark) for mark in marks))


def cells(screen: Screen[Any], widget: Widget) -> list[Cell]:
    """``widget``'s region as drawn: (character, look) per cell."""
    region = widget.region.intersection(screen.region)
    strips = screen._compositor.render_strips()
    found: list[Cell] = []
    for y in range(region.y, region.bottom):
        for segment in strips[y].crop(region.x, region.right):
            found += [(char, cell_key(segment.style)) for char in segment.text]
    return found


SETTLE_TRIES = 20
"""How often a widget is measured again while its screen is still being laid out."""


async def focus_change(pilot: Pilot[Any], screen: Screen[Any], widget: Widget) -> int:
    """How many cells of ``widget`` change when it loses the focus (to nothing focused).

    Focused first: taking the focus scrolls a widget into view, so both drawings show the
    same cells."""
    for _ in range(SETTLE_TRIES):
        screen.set_focus(widget)
        await pilot.pause()
        with_focus = cells(screen, widget)
        screen.set_focus(None)
        await pilot.pause()
        without = cells(screen, widget)
        if len(without) == len(with_focus):
            return sum(a != b for a, b in zip(without, with_focus, strict=True))
        await pilot.pause(0.1)  # still laid out (a loaded machine): measure again
    raise AssertionError(f"{type(widget).__name__}#{widget.id} never kept its size")


async def unseen_focus(pilot: Pilot[Any], screen: Screen[Any]) -> list[str]:
    """The focusable widgets of ``screen`` whose focus a 16-colour terminal would not show."""
    for field in screen.query(Input).results(Input):
        field.cursor_blink = False  # a blinking cursor would count on some frames only
    unseen: list[str] = []
    for widget in list(screen.focus_chain):
        changed = await focus_change(pilot, screen, widget)
        if changed < MIN_CELLS:
            unseen.append(f"{type(widget).__name__}#{widget.id} ({changed} cells)")
    return unseen

"""The help screen (``?``, F1): the keys of the screen below, the phases, the checkpoints.

The keys are read from the screen it was opened over, so they are always the
keys that work there, including the ones the footer has no room for.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.keys import format_key
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from tui import labels
from tui.help_text import CHECKPOINTS, DIFF, PHASES
from tui.widgets.hanging_text import HangingText, Row

#: Keys every screen has, which its own bindings do not list.
APP_KEYS = (
    ("?, F1", "this help"),
    ("ctrl+p", "command palette"),
    ("q", "quit (agents keep running)"),
)


#: Actions every Textual screen binds (focus moves, copy): not this screen's own keys.
TEXTUAL_SCREEN_ACTIONS = frozenset(
    binding.action for binding in Screen.BINDINGS if isinstance(binding, Binding)
)


def key_lines(screen: Screen[object]) -> list[tuple[str, str]]:
    """(keys, what they do) for the screen's own described bindings (not a list's arrows)."""
    found: dict[str, list[str]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not isinstance(active.node, Screen) or binding.action in TEXTUAL_SCREEN_ACTIONS:
            continue  # a list's arrows, Tab and copy are not this screen's own keys
        if binding.description and binding.action not in ("app.quit", "quit", "help", "app.help"):
            # ``]`` for ``right_square_bracket``: a punctuation key by its character.
            shown = format_key(key) if "_" in key else key
            found.setdefault(binding.tooltip or binding.description, []).append(shown)
    return [(", ".join(keys), description) for description, keys in found.items()]


#: Where the meanings start, per section (keys and the diff's, phases, checkpoints).
KEY_COLUMN = 18
PHASE_COLUMN = 24
CHECKPOINT_COLUMN = 12


def key_rows(screen: Screen[object]) -> list[Row]:
    """The keys of ``screen``, then the keys every screen has."""
    return [
        (Content.styled(f"  {keys}", "bold"), Content(description))
        for keys, description in [*key_lines(screen), *APP_KEYS]
    ]


def diff_rows() -> list[Row]:
    """The keys and marks of every diff view."""
    return [(Content.styled(f"  {keys}", "bold"), Content(text)) for keys, text in DIFF]


def phase_rows() -> list[Row]:
    return [
        (Content.styled(f"  {labels.phase(phase)}", "bold"), Content(text))
        for phase, text in PHASES.items()
    ]


def checkpoint_rows() -> list[Row]:
    """Per checkpoint: its name, then what it decides and what Y and N do."""
    rows: list[Row] = []
    for kind, (decides, yes, no) in CHECKPOINTS.items():
        rows.append((Content.styled(f"  {labels.title(kind.value)}", "bold $warning"), Content()))
        rows.append((Content("    decides:"), Content(decides)))
        rows.append((Content.styled("    Y →", "$success"), Content(yes)))
        rows.append((Content.styled("    N →", "$error"), Content(no)))
    return rows


def heading(text: str) -> Static:
    return Static(Content.styled(text, "bold $accent"), classes="help-heading")


def help_sections(screen: Screen[object]) -> Iterator[Widget]:
    """The whole help: each list in two columns that keep their place at any width."""
    yield heading("Keys on this screen")
    yield HangingText(key_rows(screen), KEY_COLUMN, id="help-keys")
    yield heading("Reading a diff (dialog, review, full screen)")
    yield HangingText(diff_rows(), KEY_COLUMN, id="help-diff")
    yield heading("Phases (in order)")
    yield HangingText(phase_rows(), PHASE_COLUMN, id="help-phases")
    yield heading("The checkpoints")
    yield Static(
        Content.styled(
            "A checkpoint waits until you answer: c or Enter opens it; Y approves, N asks why "
            "and rejects, R reviews in full, Esc keeps it for later.",
            "italic",
        ),
        classes="help-note",
    )
    yield HangingText(checkpoint_rows(), CHECKPOINT_COLUMN, id="help-checkpoints")


class HelpScreen(ModalScreen[None]):
    """Esc, q, ? or F1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,q", "close", "Close help"),
    ]

    def __init__(self, below: Screen[object]) -> None:
        super().__init__()
        self._below = below

    def compose(self) -> ComposeResult:
        with Vertical(id="help") as box:
            box.border_title = "HELP"
            with VerticalScroll(id="help-body"):
                yield from help_sections(self._below)
        yield Footer()

    def plain(self) -> str:
        """The help as text, a line per row."""
        parts: list[str] = []
        for widget in self.query("#help-body > *"):
            if isinstance(widget, HangingText):
                parts.append(widget.plain())
            elif isinstance(widget, Static):
                parts.append(str(widget.content))
        return "\n".join(parts)

    def action_close(self) -> None:
        self.dismiss(None)

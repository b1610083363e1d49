"""The help screen (``?``, F1): the keys of the screen below, the phases, the checkpoints.

The keys are read from the screen it was opened over, so they are always the
keys that work there, including the ones the footer has no room for.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.keys import format_key
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Static

from tui import labels
from tui.help_text import CHECKPOINTS, DIFF, PHASES

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


def help_text(screen: Screen[object]) -> Content:
    """The whole help, as styled text."""
    parts: list[Content] = [Content.styled("Keys on this screen", "bold $accent")]
    for keys, description in [*key_lines(screen), *APP_KEYS]:
        parts.append(Content.assemble((f"  {keys:<16}", "bold"), description))
    parts += [
        Content(""),
        Content.styled("Reading a diff (dialog, review, full screen)", "bold $accent"),
    ]
    parts += [Content.assemble((f"  {keys:<16}", "bold"), text) for keys, text in DIFF]
    parts += [Content(""), Content.styled("Phases (in order)", "bold $accent")]
    for phase, text in PHASES.items():
        parts.append(Content.assemble((f"  {labels.phase(phase):<22}", "bold"), text))
    parts += [Content(""), Content.styled("The eight checkpoints", "bold $accent")]
    parts.append(
        Content.styled(
            "  A checkpoint waits until you answer: c or Enter opens it; Y approves, N asks why "
            "and rejects, R reviews in full, Esc keeps it for later.",
            "italic",
        )
    )
    for kind, (decides, yes, no) in CHECKPOINTS.items():
        parts.append(Content.assemble((f"  {labels.title(kind.value)}", "bold $warning")))
        parts.append(Content(f"    decides: {decides}"))
        parts.append(Content.assemble(("    Y → ", "$success"), yes))
        parts.append(Content.assemble(("    N → ", "$error"), no))
    return Content("\n").join(parts)


class HelpScreen(ModalScreen[None]):
    """Esc, q, ? or F1 closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,f1,q", "close", "Close help"),
    ]

    def __init__(self, below: Screen[object]) -> None:
        super().__init__()
        self._text = help_text(below)

    def compose(self) -> ComposeResult:
        with Vertical(id="help") as box:
            box.border_title = "HELP"
            with VerticalScroll(id="help-body"):
                yield Static(self._text, id="help-text")
        yield Footer()

    def action_close(self) -> None:
        self.dismiss(None)

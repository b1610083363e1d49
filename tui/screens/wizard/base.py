"""What every wizard step shares: its place in the flow, Enter for next, Esc for back.

Enter is a priority binding so that it continues from any widget (a path
field, a checkbox, a list); Space toggles and arrows move as usual. A step
checks its answer in :meth:`WizardStep.accept` and stays, with the reason on
screen, when the answer does not fit.

A step with a path field (:attr:`WizardStep.TYPED_FIELD`) takes typing and pasting
wherever the focus is: a key or a paste the focused widget leaves alone (a folder tree
has no use for letters) goes to the field. Keys typed while the step is still being
built (a step change takes about a second on a loaded machine) reach the screen before
any widget has focus; they are kept and land in the field once it exists, in order.
"""

from __future__ import annotations

from typing import ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, Static

from tui.screens.wizard.flow import Wizard

EARLY_RETRY_S = 0.05
"""How often keys typed before the path field exists look for it again."""


class WizardStep(Screen[None]):
    """One step; subclasses provide :meth:`compose_step` and :meth:`accept`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next", "Next", priority=True),
        Binding("escape", "back", "Back"),
    ]

    STEP_TITLE = ""
    HELP = ""
    #: The selector of the text field that typing and pasting reach wherever the focus is.
    TYPED_FIELD: ClassVar[str | None] = None

    def __init__(self, wizard: Wizard) -> None:
        super().__init__()
        self.wizard = wizard
        self.state = wizard.state
        self._early_events: list[events.Key | events.Paste] = []

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        with Vertical(id="wizard"):
            number = self.wizard.steps.index(type(self)) + 1
            yield Static(
                f"Step {number} of {self.wizard.total} · {self.STEP_TITLE}",
                id="step-title",
                markup=False,
            )
            yield Static(self.HELP, id="step-help", markup=False)
            yield Static("", id="step-error", markup=False)
            yield from self.compose_step()
        yield Footer()

    def compose_step(self) -> ComposeResult:
        """The step's own widgets."""
        yield from ()

    def accept(self) -> str | None:
        """Check the answer and store it in the wizard state; a reason when it does not fit."""
        return None

    def show_error(self, message: str) -> None:
        """Say why the step cannot go on (empty: clear it)."""
        self.query_one("#step-error", Static).update(message)

    def action_next(self) -> None:
        problem = self.accept()
        if problem:
            self.show_error(problem)
            return
        self.wizard.next()

    def action_back(self) -> None:
        self.wizard.back()

    def on_key(self, event: events.Key) -> None:
        """A printable key nothing else took goes to the path field (see the module's doc)."""
        if self.TYPED_FIELD is None or not event.is_printable or event.character is None:
            return
        focused = self.focused
        if focused is not None and not isinstance(focused, Input) and event.character == " ":
            return  # Space opens a folder in the tree
        event.stop()
        self._redirect(events.Key(event.key, event.character))

    def on_paste(self, event: events.Paste) -> None:
        """A path pasted with the focus elsewhere (the tree) goes to the path field."""
        if self.TYPED_FIELD is None:
            return
        event.stop()
        self._redirect(events.Paste(event.text.strip()))

    def _redirect(self, event: events.Key | events.Paste) -> None:
        """Hand ``event`` to the path field, focusing it first: the field selects its text
        as it takes the focus, so typing or pasting away from it starts a new path. Before
        the field exists, the event waits (in order) for it."""
        self._early_events.append(event)
        self._deliver_early_events()

    def _deliver_early_events(self) -> None:
        if not self._early_events or self.TYPED_FIELD is None:
            return
        try:
            field = self.query_one(self.TYPED_FIELD, Input)
        except NoMatches:  # still being built: try again shortly
            self.set_timer(EARLY_RETRY_S, self._deliver_early_events)
            return
        pending, self._early_events = self._early_events, []
        if not field.has_focus:
            self.set_focus(field)  # now, not later: the field sees its Focus before the keys
        for event in pending:
            field.post_message(event)

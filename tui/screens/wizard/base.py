"""What every wizard step shares: its place in the flow, Enter for next, Esc for back.

Enter is a priority binding so that it continues from any widget (a path
field, a checkbox, a list); Space toggles and arrows move as usual. A step
checks its answer in :meth:`WizardStep.accept` and stays, with the reason on
screen, when the answer does not fit.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from tui.screens.wizard.flow import Wizard


class WizardStep(Screen[None]):
    """One step; subclasses provide :meth:`compose_step` and :meth:`accept`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "next", "Next", priority=True),
        Binding("escape", "back", "Back"),
    ]

    STEP_TITLE = ""
    HELP = ""

    def __init__(self, wizard: Wizard) -> None:
        super().__init__()
        self.wizard = wizard
        self.state = wizard.state

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

"""The one-line reason a reject carries: N on a dialog asks for it before anything is written.

The box says what the reason is for at this checkpoint (the model's next attempt is
told it at some, it is only logged at others: :mod:`common.workspace.rejecting`), so a
reject never goes out with a generic message by accident. Enter sends what was typed
(empty is allowed and is recorded as an empty reason); Esc goes back to the dialog
without deciding.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Input, Static


class ReasonPrompt(ModalScreen[str | None]):
    """Asks why; dismisses with the typed text (maybe empty), or ``None`` on Esc."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Back to the dialog"),
    ]

    def __init__(self, question: str, *, use: str, subtitle: str = "") -> None:
        """
        Args:
            question: what the reason is for (``Reject spec_to_issues: why?``).
            use: what becomes of the reason (who reads it), shown in the empty box.
            subtitle: who waits (agent and spec).
        """
        super().__init__()
        self._question = question
        self._use = use
        self._subtitle = subtitle

    def compose(self) -> ComposeResult:
        with Vertical(id="reason-prompt") as box:
            box.border_title = "REASON"
            box.border_subtitle = self._subtitle
            yield Static(self._question, id="reason-question", markup=False)
            yield Input(placeholder=self._use, id="reason-input")
            yield Static("Enter sends (empty is allowed) · Esc goes back", id="reason-keys")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#reason-input", Input).focus()

    @on(Input.Submitted, "#reason-input")
    def reason_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)

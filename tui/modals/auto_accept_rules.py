"""The auto-accept rules of one agent: a row per checkpoint type, approve or ask.

Keyboard-first and small enough for 80×24: ↑↓ move, space (or enter) toggles the row,
``a``/``x`` set approve/ask, ``s`` saves, Esc cancels. The screen only edits a copy;
saving hands the rules back to the caller, which sends them to the daemon to be signed
(as the plain switch is), so nothing here is trusted by the agent on its own.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from common.schemas.auto_accept import DEFAULT_KEY, Answer, AutoAcceptRules
from common.schemas.checkpoint_type import CheckpointType
from common.untrusted_text import printable_line
from common.workspace.kinds import KINDS

ROWS: list[str] = [DEFAULT_KEY, *(kind.value for kind in CheckpointType)]
"""The row ids, top to bottom: the default first, then every type."""


def row_text(rules: AutoAcceptRules, key: str) -> str:
    """One row: the type, what really happens (``approve`` or ``ask``), and when a person
    is asked anyway (the type's own words, :attr:`CheckpointKind.asks_anyway`). A type
    no rule answers reads ``ask`` whatever its rule says: the row shows what happens."""
    if key == DEFAULT_KEY:
        return f"{'default (the others)':<21} {rules.default:<8}"
    kind = CheckpointType(key)
    rules_of_kind = KINDS[kind]
    answer, _rule = rules.for_type(kind)
    named = "" if kind in rules.types else "(default)"
    if rules_of_kind.always_asks:
        answer, named = "ask", ""
    return f"{key:<21} {answer:<8}{named:<10} {rules_of_kind.asks_anyway}".rstrip()


def never_by_rule(key: str) -> str | None:
    """Why no rule changes the row ``key`` (``None``: a rule does)."""
    if key == DEFAULT_KEY or not KINDS[CheckpointType(key)].always_asks:
        return None
    return f"{key} always asks a person: no rule answers it"


class AutoAcceptRulesScreen(ModalScreen[AutoAcceptRules | None]):
    """Edit one agent's rules; dismissed with the new rules (``s``) or ``None`` (Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "flip", "Toggle", show=False),  # enter: the list's own select
        Binding("a", "set('approve')", "Approve", show=False),
        Binding("x", "set('ask')", "Ask", show=False),
        Binding("s", "save", "Save"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, agent: str, rules: AutoAcceptRules) -> None:
        super().__init__()
        self._agent = agent
        self.rules = rules
        """The rules as edited so far (not yet sent)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="rules"):
            yield Static(
                f"Auto-accept rules of {printable_line(self._agent)}",
                id="rules-title",
                markup=False,
            )
            yield OptionList(
                *(Option(row_text(self.rules, key), id=key) for key in ROWS), id="rules-rows"
            )
            yield Static("", id="rules-notice", markup=False)
            yield Static(
                "↑↓ move · space toggle · a approve · x ask · s save · esc cancel",
                id="rules-keys",
                markup=False,
            )

    def on_mount(self) -> None:
        rows = self.query_one(OptionList)
        rows.highlighted = 0
        rows.focus()

    def _row(self) -> str | None:
        rows = self.query_one(OptionList)
        index = rows.highlighted
        return ROWS[index] if index is not None else None

    def _apply(self, key: str, answer: Answer) -> None:
        refused = never_by_rule(key)
        self.query_one("#rules-notice", Static).update(refused or "")
        if refused is not None:
            return
        if key == DEFAULT_KEY:
            self.rules = self.rules.with_default(answer)
        else:
            self.rules = self.rules.with_answer(CheckpointType(key), answer)
        rows = self.query_one(OptionList)
        for index, row in enumerate(ROWS):  # a new default changes the unnamed rows too
            rows.replace_option_prompt_at_index(index, row_text(self.rules, row))

    def _answer(self, key: str) -> Answer:
        if key == DEFAULT_KEY:
            return self.rules.default
        return self.rules.for_type(CheckpointType(key))[0]

    def action_flip(self) -> None:
        """Flip the highlighted row between approve and ask."""
        key = self._row()
        if key is not None:
            self._apply(key, "ask" if self._answer(key) == "approve" else "approve")

    def action_set(self, answer: str) -> None:
        """Set the highlighted row to ``answer``."""
        key = self._row()
        if key is not None:
            self._apply(key, "approve" if answer == "approve" else "ask")

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_flip()

    def action_save(self) -> None:
        self.dismiss(self.rules)

    def action_cancel(self) -> None:
        self.dismiss(None)

"""The full review screen every checkpoint type shares: details, a reason, approve or reject.

Each type fills the body with what a careful reviewer needs (the proposed
issues, the diff, the failing tests) and may offer a choice (issues to enrich,
the issue to work on, the regression action). The screen only returns an
:class:`~tui.services.decide.Answer`; the checkpoint dialog records it.

An answer the harness would refuse (a dependency edit that makes a cycle) is checked
here first, as the harness checks it, and refused here: the screen stays open with the
reason beside the field, and every edit and the typed feedback stay where they are.
What is typed is also kept in the dialog's :class:`Draft`, so Esc and R again, or a
refusal when the dialog records the answer, find it as it was left.

A screen with a diff gives it the room: the reason field and the buttons are folded
into one line until needed (Ctrl+N opens the field, and so does typing a reason, so
nothing typed is lost; a click on the line opens both; Esc folds them again, keeping
what was typed). Ctrl+Y still approves at once. The diff's keys are the dialog's:
``]``/``[`` files, ``f`` full screen, ``p`` the pager (:mod:`tui.modals.diff_keys`).
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar, Generic, TypeVar

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from common.errors import CheckpointError
from common.schemas.checkpoint import CheckpointBase
from common.untrusted_text import printable_line
from common.workspace import rejecting
from common.workspace.diff_text import ReviewDiff, review_diff
from tui import labels
from tui.modals import checkpoint_text
from tui.modals.diff_keys import FILE_KEYS, KEYS_TEXT, hand_to_pager, view_keys
from tui.modals.diff_screen import DiffScreen
from tui.services.decide import Answer, build_decision
from tui.services.pending import Waiting
from tui.widgets.diff_view import DiffView

CheckpointT = TypeVar("CheckpointT", bound=CheckpointBase)

Draft = dict[str, str]
"""What was typed in a review's text fields, by field id (kept by its dialog)."""


class ReviewScreen(ModalScreen[Answer | None], Generic[CheckpointT]):
    """Subclasses add the body (:meth:`compose_body`) and, if any, the choice (:meth:`choice`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+y", "approve", "Approve"),
        Binding("ctrl+n", "reject", "Reject"),
        Binding("escape", "back", "Back to the dialog"),
        Binding("f1", "app.help", "Help"),
        *FILE_KEYS,
        *view_keys(both_cases=False),
    ]

    #: Whether a reason can go with the answer (the feedback for a rejected proposal).
    TAKES_REASON = True
    #: Whether the cursor starts in the reason field (screens with a list to pick from start there).
    FOCUS_REASON = True
    #: The heading above the type's details (empty: none, the body starts with its own).
    HEADING = "Details"

    #: The checkpoint type's schema class this screen reviews.
    MODEL: type[CheckpointT]

    def __init__(self, item: Waiting, subtitle: str = "", draft: Draft | None = None) -> None:
        """
        Args:
            item: the waiting checkpoint, of this screen's type (:attr:`MODEL`).
            subtitle: who waits (agent and spec).
            draft: what was typed the last time this checkpoint's review was open; the
                fields start with it and write to it.

        Raises:
            TypeError: ``item``'s checkpoint is of another type (a bug in the lookup).
        """
        checkpoint = item.checkpoint
        if not isinstance(checkpoint, self.MODEL):
            raise TypeError(f"{type(self).__name__} does not review {checkpoint.type.value}")
        super().__init__()
        self.item = item
        self.checkpoint: CheckpointT = checkpoint
        self._subtitle = subtitle
        self.draft: Draft = {} if draft is None else draft
        self.folded = self._review is not None and not self.draft.get("reason")
        """Whether the reason field and the buttons are folded away (a diff needs the room)."""

    def compose(self) -> ComposeResult:
        reject = checkpoint_text.reject_label(self.item.checkpoint)
        with Vertical(id="review") as review:
            review.border_title = f"REVIEW: {labels.checkpoint_title(self.item.checkpoint)}"
            review.border_subtitle = printable_line(self._subtitle)
            question = printable_line(self.checkpoint.to_decide)
            yield Static(question, id="review-question", markup=False)
            with VerticalScroll(id="review-body"):
                if self.HEADING:
                    yield Static(self.HEADING, classes="heading", markup=False)
                yield from self.compose_body()
            fold = Static(self._fold_text(reject), id="review-fold", markup=False)
            fold.display = self.folded
            yield fold
            notice = Static("", id="review-notice", markup=False)
            notice.display = False
            yield notice
            with Vertical(id="review-answer") as answer:
                answer.display = not self.folded
                if self.TAKES_REASON:
                    use = rejecting.reason_use(self.item.checkpoint.type)
                    # Never select on focus: a key typed on return would replace the reason.
                    yield Input(placeholder=f"on reject: {use}", id="reason", select_on_focus=False)
                with Horizontal(id="review-buttons"):
                    yield Button(self.approve_text(), variant="success", id="approve")
                    if reject is not None:
                        yield Button(reject.capitalize(), variant="error", id="reject")
                    yield Button("Back", id="back")
        yield Footer()

    def _fold_text(self, reject: str | None) -> str:
        """The folded answer's one line: what the keys do, and how to open it."""
        said = [f"▸ Ctrl+Y {self.approve_text().lower()}"]
        if reject is not None:
            said.append(f"Ctrl+N {reject}" + (" (asks why)" if self.TAKES_REASON else ""))
        said.append("typing opens the reason" if self.TAKES_REASON else "click: buttons")
        return " · ".join(said)

    def say(self, text: str) -> None:
        """Show ``text`` on the notice line above the answer (empty: hide the line)."""
        notice = self.query_one("#review-notice", Static)
        notice.update(text)
        notice.display = bool(text)

    def on_mount(self) -> None:
        """The cursor starts in the feedback field, so a typed reason is never lost.

        Screens whose answer is a choice focus their list instead (Tab reaches the field);
        a folded screen the diff's scroll (typing opens the field: :meth:`on_key`). Every
        text field starts with what the draft kept of it (a kept reason keeps it unfolded).
        """
        for field in self.query(Input).results(Input):
            if field.id in self.draft:
                field.value = self.draft[field.id]
        if self.folded and self.FOCUS_REASON:
            self.query_one("#review-body").focus()
        elif self.TAKES_REASON and self.FOCUS_REASON:
            self.query_one("#reason", Input).focus()

    @on(Input.Changed)
    def keep_typed(self, event: Input.Changed) -> None:
        """Each keystroke into the draft: nothing typed is lost when the screen closes."""
        if event.input.id is not None:
            self.draft[event.input.id] = event.value

    def unfold(self, *, focus_reason: bool = True) -> None:
        """Show the reason field and the buttons; the cursor goes to the field."""
        self.folded = False
        self.query_one("#review-fold").display = False
        self.query_one("#review-answer").display = True
        if focus_reason and self.TAKES_REASON:
            self.query_one("#reason", Input).focus()

    def fold(self) -> None:
        """Fold the reason field and the buttons again (what was typed stays)."""
        self.folded = True
        self.query_one("#review-fold").display = True
        self.query_one("#review-answer").display = False
        self.query_one("#review-body").focus()

    def on_key(self, event: events.Key) -> None:
        """A printable key no binding takes, typed while folded, opens the reason field
        and goes into it: nothing typed goes nowhere."""
        if not (self.folded and self.TAKES_REASON and event.is_printable and event.character):
            return
        if event.key in self.active_bindings or isinstance(self.focused, Input):
            return  # a key of this screen or of the focused list, or already typing
        event.stop()
        event.prevent_default()
        self.unfold()
        self.query_one("#reason", Input).insert_text_at_cursor(event.character)

    def on_click(self, event: events.Click) -> None:
        if event.widget is not None and event.widget.id == "review-fold":
            self.unfold(focus_reason=False)

    def compose_body(self) -> ComposeResult:
        """The type's details; the default shows the dialog's context lines."""
        yield Static(checkpoint_text.details(self.item.checkpoint), markup=False)

    def diff_view(self) -> ComposeResult:
        """The checkpoint's diff, file by file, if it carries one."""
        review = self._review
        if review is not None:
            yield DiffView(review, keys=KEYS_TEXT, id="diff")

    @cached_property
    def _review(self) -> ReviewDiff | None:
        """The checkpoint's diff, split and escaped once per screen."""
        return review_diff(self.item.checkpoint)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The diff's keys exist (and show in the footer) only where there is a diff."""
        if action.startswith("diff_"):  # asked at every key and footer refresh: no rebuild
            return self._review is not None
        return True

    def action_diff_file(self, step: int) -> None:
        """Jump to the next or previous file of the diff."""
        for view in self.query(DiffView).results(DiffView):
            view.jump(step)

    def action_diff_full(self) -> None:
        """The diff full screen."""
        if self._review is not None:
            title = labels.checkpoint_title(self.item.checkpoint)
            subtitle = printable_line(self._subtitle)
            self.app.push_screen(DiffScreen(self._review, title=title, subtitle=subtitle))

    def action_diff_pager(self) -> None:
        """The diff in the person's pager, the TUI suspended meanwhile."""
        if self._review is not None:
            self.say(hand_to_pager(self.app, self._review) or "")

    def choice(self) -> str | None:
        """The explicit choice to approve with; ``None`` approves with the default."""
        return None

    def approve_text(self) -> str:
        """The approve button's label."""
        return "Approve"

    def reason(self) -> str | None:
        """What was typed in the reason field, if anything."""
        if not self.TAKES_REASON:
            return None
        text = self.query_one("#reason", Input).value.strip()
        return text or None

    def action_approve(self) -> None:
        self._answer(Answer(approve=True, choice=self.choice(), reason=self.reason()))

    def action_reject(self) -> None:
        """Reject with the reason typed; folded, first open the field to type it in."""
        if checkpoint_text.reject_label(self.item.checkpoint) is None:
            self.say(f"{self.item.checkpoint.type.value} cannot be rejected: choose an action")
            return
        if self.folded and self.TAKES_REASON:
            self.unfold()
            self.say("why? type it (or leave it empty), then Ctrl+N rejects")
            return
        self._answer(Answer(approve=False, reason=self.reason()))

    def _answer(self, answer: Answer) -> None:
        """Hand ``answer`` to the dialog, unless the harness would refuse it: then stay."""
        try:
            build_decision(self.item.checkpoint, answer)
        except CheckpointError as e:
            self.refused(str(e))
            return
        self.dismiss(answer)

    def refused(self, problem: str) -> None:
        """The answer would be refused for ``problem``: say so above the answer (screens
        with fields say it beside the field too)."""
        self.say(problem)

    def action_back(self) -> None:
        """Esc: fold the open answer of a screen with a diff, else back to the dialog."""
        if self._review is not None and not self.folded:
            self.fold()
            return
        self.dismiss(None)

    @on(Button.Pressed, "#approve")
    def approve_pressed(self) -> None:
        self.action_approve()

    @on(Button.Pressed, "#reject")
    def reject_pressed(self) -> None:
        self.action_reject()

    @on(Button.Pressed, "#back")
    def back_pressed(self) -> None:
        self.action_back()

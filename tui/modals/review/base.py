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
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar, Generic, TypeVar

from textual import on
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
        Binding("ctrl+down", "diff_file(1)", "Next file"),
        Binding("ctrl+up", "diff_file(-1)", "Prev file"),
    ]

    #: Whether a reason can go with the answer (the feedback for a rejected proposal).
    TAKES_REASON = True
    #: Whether the cursor starts in the reason field (screens with a list to pick from start there).
    FOCUS_REASON = True
    #: The heading above the type's details.
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

    def compose(self) -> ComposeResult:
        reject = checkpoint_text.reject_label(self.item.checkpoint)
        with Vertical(id="review") as review:
            review.border_title = f"REVIEW: {labels.checkpoint_title(self.item.checkpoint)}"
            review.border_subtitle = printable_line(self._subtitle)
            question = printable_line(self.checkpoint.to_decide)
            yield Static(question, id="review-question", markup=False)
            with VerticalScroll(id="review-body"):
                yield Static(self.HEADING, classes="heading", markup=False)
                yield from self.compose_body()
            if self.TAKES_REASON:
                use = rejecting.reason_use(self.item.checkpoint.type)
                yield Input(placeholder=f"on reject: {use}", id="reason")
            yield Static("", id="review-notice", markup=False)
            with Horizontal(id="review-buttons"):
                yield Button(self.approve_text(), variant="success", id="approve")
                if reject is not None:
                    yield Button(reject.capitalize(), variant="error", id="reject")
                yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        """The cursor starts in the feedback field, so a typed reason is never lost.

        Screens whose answer is a choice focus their list instead (Tab reaches the field).
        Every text field starts with what the draft kept of it.
        """
        for field in self.query(Input).results(Input):
            if field.id in self.draft:
                field.value = self.draft[field.id]
        if self.TAKES_REASON and self.FOCUS_REASON:
            self.query_one("#reason", Input).focus()

    @on(Input.Changed)
    def keep_typed(self, event: Input.Changed) -> None:
        """Each keystroke into the draft: nothing typed is lost when the screen closes."""
        if event.input.id is not None:
            self.draft[event.input.id] = event.value

    def compose_body(self) -> ComposeResult:
        """The type's details; the default shows the dialog's context lines."""
        yield Static(checkpoint_text.details(self.item.checkpoint), markup=False)

    def diff_view(self) -> ComposeResult:
        """The checkpoint's diff, file by file, if it carries one."""
        review = self._review
        if review is not None:
            yield DiffView(review, keys="ctrl+↓ next file, ctrl+↑ previous", id="diff")

    @cached_property
    def _review(self) -> ReviewDiff | None:
        """The checkpoint's diff, split and escaped once per screen."""
        return review_diff(self.item.checkpoint)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The diff's keys exist (and show in the footer) only where there is a diff."""
        if action == "diff_file":  # asked at every key and footer refresh: no diff rebuilt
            return self._review is not None
        return True

    def action_diff_file(self, step: int) -> None:
        """Jump to the next or previous file of the diff."""
        for view in self.query(DiffView).results(DiffView):
            view.jump(step)

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
        if checkpoint_text.reject_label(self.item.checkpoint) is None:
            kind = self.item.checkpoint.type.value
            self.notice(f"{kind} cannot be rejected: choose an action")
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
        """The answer would be refused for ``problem``: say so above the buttons (screens
        with fields say it beside the field too)."""
        self.notice(problem)

    def notice(self, text: str) -> None:
        """The line above the buttons (empty: clear it)."""
        self.query_one("#review-notice", Static).update(text)

    def action_back(self) -> None:
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

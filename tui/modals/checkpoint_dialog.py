"""The checkpoint dialog: one pending checkpoint, answered with a key.

Y or 1 approves with the checkpoint's default, N, X or 0 asks for a reason in one
line and then rejects (refused for regression_approval, which needs an explicit
action), R opens the full review screen, Esc puts the checkpoint aside undecided;
where there is a diff, ``]``/``[`` jump between its files, F shows it full screen and
P hands it to the person's pager (:mod:`tui.modals.diff_keys`).
Upper- and lower-case keys do the same. A dialog that opened by itself (auto-open)
ignores keys for :data:`KEY_GRACE_S`, so a key meant for something else, pressed
just as it appeared, never answers a checkpoint nobody read. The dialog writes the decision
itself, so a refused answer (a choice that does not fit) leaves it open with
the reason; it closes with what happened, and closes by itself when the
checkpoint is decided elsewhere.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from common.errors import (
    AlreadyDecidedError,
    CheckpointError,
    HarnessError,
    NoPendingCheckpointError,
)
from common.schemas.checkpoint import Checkpoint
from common.untrusted_text import printable_line
from common.workspace import rejecting
from common.workspace.diff_text import ReviewDiff, review_diff
from tui import labels
from tui.modals import checkpoint_text
from tui.modals.diff_keys import FILE_KEYS, KEYS_TEXT, hand_to_pager, view_keys
from tui.modals.diff_screen import DiffScreen
from tui.modals.reason_prompt import ReasonPrompt
from tui.modals.review import Draft, review_for
from tui.services.decide import Answer, answer_checkpoint, build_decision
from tui.services.pending import Waiting
from tui.widgets.diff_view import DiffView

#: How long a dialog that opened by itself ignores keys (a key already on its way).
KEY_GRACE_S = 0.6


@dataclass(frozen=True)
class Decided:
    """This TUI recorded the decision; ``checkpoint`` is the decided checkpoint."""

    checkpoint: Checkpoint


@dataclass(frozen=True)
class Superseded:
    """The checkpoint was decided elsewhere or its agent stopped; ``reason`` says which."""

    reason: str


@dataclass(frozen=True)
class SetAside:
    """Esc: nothing was decided."""


DialogOutcome = Decided | Superseded | SetAside


class CheckpointDialog(ModalScreen[DialogOutcome]):
    """One checkpoint of one agent, in the seed's WHAT HAPPENED / IF APPROVED / IF REJECTED form."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,Y,1", "approve", "Approve"),
        Binding("n,N,x,X,0", "reject", "Reject"),
        Binding("r,R", "review", "Review"),
        Binding("escape", "set_aside", "Later"),
        *FILE_KEYS,
        *view_keys(both_cases=True),
        Binding("question_mark,f1", "app.help", "Help"),
        # A modal screen hides the app's own keys; quitting decides nothing and the
        # checkpoint waits for the next TUI.
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(
        self, item: Waiting, *, subtitle: str = "", others: int = 0, grace_s: float = 0.0
    ) -> None:
        """
        Args:
            item: the waiting checkpoint.
            subtitle: who waits (agent and spec).
            others: how many more checkpoints wait after this one.
            grace_s: ignore keys this long after the dialog appears (it opened by itself).
        """
        super().__init__()
        self.item = item
        self._subtitle = subtitle
        self._others = others
        self._busy = False
        self._grace_s = grace_s
        self._shown_at = time.monotonic()
        self._draft: Draft = {}
        """What was typed in the review (feedback, edits): kept while the dialog is open."""

    def on_mount(self) -> None:
        self._shown_at = time.monotonic()

    def _ready(self) -> bool:
        """Whether keys count yet (see :data:`KEY_GRACE_S`)."""
        return time.monotonic() - self._shown_at >= self._grace_s

    @property
    def checkpoint(self) -> Checkpoint:
        return self.item.checkpoint

    def compose(self) -> ComposeResult:
        checkpoint = self.checkpoint
        with Vertical(id="dialog") as dialog:
            dialog.border_title = f"HITL CHECKPOINT: {labels.checkpoint_title(checkpoint)}"
            dialog.border_subtitle = printable_line(self._subtitle)
            yield Static(self._others_text(), id="others")
            with VerticalScroll(id="dialog-body"):
                yield Static(
                    checkpoint_text.what_happened(checkpoint, self._review), id="what-happened"
                )
                yield Static(checkpoint_text.details(checkpoint), id="details", markup=False)
                with Horizontal(id="outcomes"):
                    approved_text = f"→ {printable_line(checkpoint.if_approved)}"
                    approved = Static(approved_text, id="if-approved", markup=False)
                    approved.border_title = "IF APPROVED"
                    yield approved
                    rejected_text = f"→ {printable_line(checkpoint.if_rejected)}"
                    rejected = Static(rejected_text, id="if-rejected", markup=False)
                    rejected.border_title = "IF REJECTED"
                    yield rejected
                review = self._review
                if review is not None:
                    yield DiffView(review, keys=KEYS_TEXT, id="dialog-diff")
            # The action line is docked to the dialog's bottom edge: the body shrinks and
            # scrolls on a small terminal, the keys never leave the screen.
            with Vertical(id="dialog-keys"):
                yield self._notice_line
                yield Static(checkpoint_text.shortcuts(checkpoint), id="shortcuts")
        yield Footer()

    def set_others(self, count: int) -> None:
        """Update how many more checkpoints wait."""
        self._others = count
        # Before its children are mounted, compose reads the count instead.
        for line in self.query("#others").results(Static):
            line.update(self._others_text())

    def close_superseded(self, reason: str) -> None:
        """The checkpoint no longer waits: close the dialog (and a review screen on top of it).

        While this dialog writes a decision itself, the file watch reports that very
        write; the dialog then closes with its own outcome instead.
        """
        if not self._busy:
            self._close(Superseded(reason))

    def action_approve(self) -> None:
        if self._ready():
            self._decide(Answer(approve=True))

    def action_reject(self) -> None:
        """Ask for the reason first; the reject is written when it is sent."""
        if not self._ready() or self._busy:
            return
        try:
            build_decision(self.checkpoint, Answer(approve=False))
        except CheckpointError as e:
            self._notice(f"{e} — press R to choose one, or Y for fix_now")
            return
        kind = self.checkpoint.type.value
        prompt = ReasonPrompt(
            f"Reject {kind}: why? ({printable_line(self.checkpoint.if_rejected)})",
            use=rejecting.reason_use(self.checkpoint.type),
            subtitle=printable_line(self._subtitle),
        )
        self.app.push_screen(prompt, self._reason_given)

    def _reason_given(self, reason: str | None) -> None:
        if reason is not None:
            self._decide(Answer(approve=False, reason=reason))

    def action_review(self) -> None:
        if self._ready() and not self._busy:
            review = review_for(self.item, self._subtitle, self._draft)
            self.app.push_screen(review, self._reviewed)

    @cached_property
    def _review(self) -> ReviewDiff | None:
        """The checkpoint's diff, split and escaped once per screen."""
        return review_diff(self.checkpoint)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The diff's keys exist (and show in the footer) only where there is a diff."""
        if action.startswith("diff_"):  # asked at every key and footer refresh: no rebuild
            return self._review is not None
        return True

    def action_diff_file(self, step: int) -> None:
        """Jump to the next or previous file of the diff (issue_closure)."""
        for view in self.query(DiffView).results(DiffView):
            view.jump(step)

    def action_diff_full(self) -> None:
        """The diff full screen (it decides nothing: no grace period needed)."""
        if self._review is not None:
            title = labels.checkpoint_title(self.checkpoint)
            subtitle = printable_line(self._subtitle)
            self.app.push_screen(DiffScreen(self._review, title=title, subtitle=subtitle))

    def action_diff_pager(self) -> None:
        """The diff in the person's pager, the TUI suspended meanwhile."""
        if self._review is not None:
            self._notice(hand_to_pager(self.app, self._review) or "")

    def action_set_aside(self) -> None:
        if self._ready() and not self._busy:
            self._close(SetAside())

    def _reviewed(self, answer: Answer | None) -> None:
        if answer is not None:
            self._decide(answer)

    def _decide(self, answer: Answer) -> None:
        """Start recording ``answer``, once: keys pressed while it is written are ignored."""
        if self._busy:
            return
        self._busy = True
        self._notice("recording the decision…")
        self._record(answer)

    @work(group="decide")
    async def _record(self, answer: Answer) -> None:
        try:
            decided = await answer_checkpoint(self.item, answer)
        except (AlreadyDecidedError, NoPendingCheckpointError) as e:
            self._close(Superseded(str(e)))
            return
        except HarnessError as e:  # a choice that does not fit, an unreadable file
            self._busy = False
            self._notice(str(e))
            return
        self._close(Decided(decided))

    def _close(self, outcome: DialogOutcome) -> None:
        """Dismiss with ``outcome``, first closing anything opened on top of the dialog."""
        if self not in self.app.screen_stack:
            return
        if self.app.screen is not self:
            self.pop_until_active()
        self.dismiss(outcome)

    @cached_property
    def _notice_line(self) -> Static:
        """The line for what happened to an answer, held here: a key pressed as the dialog
        appears reaches it before the nested line is mounted (a query would find nothing)."""
        return Static("", id="notice", markup=False)

    def _notice(self, text: str) -> None:
        self._notice_line.update(text)
        self._notice_line.display = bool(text)  # no empty line above the keys until then

    def _others_text(self) -> str:
        if not self._others:
            return ""
        noun = "checkpoint waits" if self._others == 1 else "checkpoints wait"
        return f"{self._others} more {noun} after this one"

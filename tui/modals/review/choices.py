"""Review screens whose answer is a choice: issues to enrich, next issue, regression action,
budget action, what follows a merge conflict."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import OptionList, SelectionList, Static
from textual.widgets.option_list import Option
from textual.widgets.selection_list import Selection

from common.schemas.checkpoint import (
    BudgetAction,
    BudgetReachedCheckpoint,
    IssueEnrichmentCheckpoint,
    IssueRef,
    IssueSelectionCheckpoint,
    MergeConflictCheckpoint,
    RegressionAction,
    RegressionApprovalCheckpoint,
)
from common.untrusted_text import printable_line
from common.workspace.kinds.merge_conflict import ACTION_TEXT
from tui.modals.checkpoint_text import details
from tui.modals.review.base import CheckpointT, ReviewScreen
from tui.modals.review.plain import test_run_text

ACTION_HELP = {
    RegressionAction.FIX_NOW: "fix_now — run another session on the same issue to fix it",
    RegressionAction.DEFER: "defer — file a bug issue for the regression and carry on",
    RegressionAction.ABORT: "abort — stop the run; the branch keeps what is committed",
}


#: The marks before a ticked and an unticked issue: the list's own toggle differs by colour
#: only, which a monochrome terminal (or a colour-blind person) cannot tell apart.
TICKED = "[x]"
UNTICKED = "[ ]"


def enrich_prompt(ref: IssueRef, ticked: bool) -> Content:
    """``[x] #2 Add word_count``: one issue of the enrichment list, never markup."""
    mark = TICKED if ticked else UNTICKED
    return Content(f"{mark} #{ref.iid} {printable_line(ref.title)}")


class IssueEnrichmentReview(ReviewScreen[IssueEnrichmentCheckpoint]):
    """Which issues get a deep-research session; prefilled with the model's recommendation."""

    FOCUS_REASON = False
    HEADING = "Issues to enrich (space toggles; the model's picks are ticked [x])"
    MODEL = IssueEnrichmentCheckpoint
    TAKES_REASON = False

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield SelectionList[int](
            *(
                Selection(
                    enrich_prompt(ref, ref.iid in context.recommended),
                    ref.iid,
                    ref.iid in context.recommended,
                    id=str(ref.iid),
                )
                for ref in context.issues
            ),
            id="enrich",
        )

    def on_mount(self) -> None:
        self.query_one("#enrich", SelectionList).focus()

    @on(SelectionList.SelectedChanged, "#enrich")
    def ticks_changed(self) -> None:
        """Redraw each issue's mark to follow its tick."""
        enrich = self.query_one("#enrich", SelectionList)
        ticked = set(enrich.selected)
        for ref in self.checkpoint.context.issues:
            enrich.replace_option_prompt(str(ref.iid), enrich_prompt(ref, ref.iid in ticked))

    def choice(self) -> str:
        """The ticked iids, in list order (empty: enrich none)."""
        ticked = set(self.query_one("#enrich", SelectionList).selected)
        order = [ref.iid for ref in self.checkpoint.context.issues]
        return ",".join(str(iid) for iid in order if iid in ticked)

    def approve_text(self) -> str:
        return "Enrich the ticked issues"


class IssueSelectionReview(ReviewScreen[IssueSelectionCheckpoint]):
    """The open issues; Enter works on the highlighted one (the recommended one to begin with)."""

    FOCUS_REASON = False
    HEADING = "Open issues (Enter picks)"
    MODEL = IssueSelectionCheckpoint
    TAKES_REASON = False

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        yield Static(f"{context.closed_count} closed so far.", markup=False)
        yield OptionList(
            *(
                Option(
                    f"#{ref.iid} {printable_line(ref.title)}"
                    + ("  ← recommended" if ref.iid == context.recommended_iid else ""),
                    id=str(ref.iid),
                )
                for ref in context.open_issues
            ),
            id="issues",
            markup=False,
        )
        if context.blocked:
            waiting = "\n".join(
                f"  #{item.iid} {printable_line(item.title)}  (waits for "
                + ", ".join(f"#{iid}" for iid in item.waiting_for)
                + ")"
                for item in context.blocked
            )
            yield Static(f"Blocked, not yet to choose:\n{waiting}", markup=False)

    def on_mount(self) -> None:
        issues = self.query_one("#issues", OptionList)
        issues.highlighted = issues.get_option_index(str(self.checkpoint.context.recommended_iid))
        issues.focus()

    def choice(self) -> str | None:
        option = self.query_one("#issues", OptionList).highlighted_option
        return option.id if option is not None else None

    def approve_text(self) -> str:
        return "Work on the highlighted issue"

    @on(OptionList.OptionSelected, "#issues")
    def issue_picked(self) -> None:
        self.action_approve()


class ActionChoice(ReviewScreen[CheckpointT]):
    """Review screens whose answer is one of a few named actions, in an ``#actions`` list:
    the first is highlighted, Enter (or a click) applies the highlighted one."""

    def action_list(self, labels: dict[str, str]) -> OptionList:
        """The list of actions (id → label)."""
        options = (Option(label, id=action) for action, label in labels.items())
        return OptionList(*options, id="actions", markup=False)

    def on_mount(self) -> None:
        actions = self.query_one("#actions", OptionList)
        actions.highlighted = 0
        actions.focus()

    def choice(self) -> str | None:
        option = self.query_one("#actions", OptionList).highlighted_option
        return option.id if option is not None else None

    def approve_text(self) -> str:
        return "Apply the highlighted action"

    @on(OptionList.OptionSelected, "#actions")
    def action_picked(self) -> None:
        self.action_approve()


class RegressionApprovalReview(ActionChoice[RegressionApprovalCheckpoint]):
    """What broke and the explicit actions; there is no plain reject."""

    FOCUS_REASON = False
    HEADING = "Regression"
    MODEL = RegressionApprovalCheckpoint

    def compose_body(self) -> ComposeResult:
        context = self.checkpoint.context
        failing = "\n".join(f"  ✗ {printable_line(name)}" for name in context.newly_failing)
        where = (
            f"Issue #{context.issue_iid}: {printable_line(context.issue_title)}"
            if context.issue_iid is not None
            else "Before the merge request"
        )
        yield Static(f"{where}\nNewly failing:\n{failing}", markup=False)
        yield Static(test_run_text(context.test_run), markup=False)
        yield Static("Action (Enter applies):", classes="heading")
        yield self.action_list({action.value: ACTION_HELP[action] for action in context.actions})
        yield from self.diff_view()


BUDGET_HELP = {
    BudgetAction.MERGE_REQUEST: "merge_request — no new issue; the MR gets what is done",
    BudgetAction.RAISE: "raise — double the reached budget and carry on",
    BudgetAction.STOP: "stop — pause here; `harness resume` asks again",
}


class BudgetReachedReview(ActionChoice[BudgetReachedCheckpoint]):
    """The spend (in total and per issue) and the three ways on."""

    HEADING = "Budget reached"
    MODEL = BudgetReachedCheckpoint
    TAKES_REASON = False

    def compose_body(self) -> ComposeResult:
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static("Action (Enter applies):", classes="heading")
        yield self.action_list({action.value: label for action, label in BUDGET_HELP.items()})


class MergeConflictReview(ActionChoice[MergeConflictCheckpoint]):
    """The issue, its conflicted files and diff, and the three ways on (redo first, the
    default); a reject pauses the run."""

    FOCUS_REASON = False
    HEADING = "Merge conflict"
    MODEL = MergeConflictCheckpoint

    def compose_body(self) -> ComposeResult:
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static("Action (Enter applies):", classes="heading")
        labels = {
            action.value: f"{action.value} — {ACTION_TEXT[action]}"
            for action in self.checkpoint.context.actions
        }
        yield self.action_list(labels)
        yield from self.diff_view()

"""The review screen of enrichment_scope: each held enrichment's diff, and which to apply."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import SelectionList, Static
from textual.widgets.selection_list import Selection

from common.schemas.checkpoint import EnrichmentScopeCheckpoint, ScopeChange
from common.untrusted_text import printable_line
from tui.modals.checkpoint_text import details
from tui.modals.review.base import ReviewScreen
from tui.modals.review.choices import TICKED, UNTICKED


def apply_prompt(change: ScopeChange, ticked: bool) -> Content:
    """``[ ] #3 Add word_count`` (the enriched title): one enrichment to apply, never markup."""
    mark = TICKED if ticked else UNTICKED
    return Content(f"{mark} #{change.iid} {printable_line(change.enriched_title)}")


class EnrichmentScopeReview(ReviewScreen[EnrichmentScopeCheckpoint]):
    """What each enrichment dropped (the harness's list), the diff spec-faithful → enriched,
    and the enrichments to apply: none is ticked, as the default keeps the spec's text."""

    FOCUS_REASON = False
    HEADING = "Enrichments that change an issue's scope"
    MODEL = EnrichmentScopeCheckpoint
    TAKES_REASON = False

    def compose_body(self) -> ComposeResult:
        yield Static(details(self.item.checkpoint), markup=False)
        yield Static(
            "Apply the enrichment of (space ticks [x]; [ ] keeps the spec's text):",
            classes="heading",
            markup=False,
        )
        yield SelectionList[int](
            *(
                Selection(apply_prompt(change, False), change.iid, False, id=str(change.iid))
                for change in self.checkpoint.context.changes
            ),
            id="apply",
        )
        yield from self.diff_view()

    def on_mount(self) -> None:
        self.query_one("#apply", SelectionList).focus()

    @on(SelectionList.SelectedChanged, "#apply")
    def ticks_changed(self) -> None:
        """Redraw each enrichment's mark to follow its tick."""
        apply = self.query_one("#apply", SelectionList)
        ticked = set(apply.selected)
        for change in self.checkpoint.context.changes:
            apply.replace_option_prompt(str(change.iid), apply_prompt(change, change.iid in ticked))

    def choice(self) -> str:
        """The ticked iids, in list order (empty: apply none)."""
        ticked = set(self.query_one("#apply", SelectionList).selected)
        order = [change.iid for change in self.checkpoint.context.changes]
        return ",".join(str(iid) for iid in order if iid in ticked)

    def approve_text(self) -> str:
        return "Apply the ticked ones"

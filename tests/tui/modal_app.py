"""A bare app showing one checkpoint dialog (or its review screen) over an empty screen,
with the cockpit's CSS: what the dialog, snapshot and small-terminal tests look at."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Footer, Header

from common.schemas.checkpoint import Checkpoint
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.review import review_for
from tui.services.pending import Waiting

CSS = Path(__file__).resolve().parents[2] / "tui" / "app.tcss"
SUBTITLE = "agent_1 · textkit-helpers.md"


class ModalApp(App[None]):
    """``checkpoint`` as agent_1's, in its dialog (``others``: how many more wait) or,
    with ``review``, in its review screen."""

    CSS_PATH = CSS
    TITLE = "coding-harness"

    def __init__(self, checkpoint: Checkpoint, *, review: bool = False, others: int = 0) -> None:
        super().__init__()
        self.item = Waiting("agent_1", Path("/srv/ws"), checkpoint)
        self.review = review
        self.others = others

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Footer()

    def on_mount(self) -> None:
        if self.review:
            self.push_screen(review_for(self.item, SUBTITLE))
        else:
            self.push_screen(CheckpointDialog(self.item, subtitle=SUBTITLE, others=self.others))

"""Where the selected agent is in the seed's three stages, and its current phase."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from common.schemas.phase import Phase, Stage
from tui import labels

STAGES = ((Stage.INITIALIZER, "Initializer"), (Stage.CODING, "Coding"), (Stage.MR, "MR"))


def phase_line(value: Phase | None, slots: int = 0) -> Content:
    """``Initializer ▸ Coding ▸ MR`` with the current stage lit, then the phase itself
    (and how many issues are worked in parallel, when ``slots``)."""
    current = value.stage if value is not None else None
    parts: list[Content | str] = []
    done = True
    for stage, label in STAGES:
        if stage is current:
            parts.append(Content.styled(f" {label} ", "bold reverse $accent"))
            done = False
        else:
            style = "$success" if done and current is not None else "dim"
            parts.append(Content.styled(f" {label} ", style))
        parts.append(Content.styled(" ▸ ", "dim"))
    ending = "done" if value is Phase.DONE else "failed" if value is Phase.FAILED else "end"
    parts.append(
        Content.styled(f" {ending} ", "bold reverse $accent" if current is Stage.END else "dim")
    )
    parts.append(Content.styled(f"   phase: {labels.phase(value)}", "bold"))
    if slots:  # short: the line fits 80 columns
        parts.append(Content.styled(f" · {slots} slot{'s' if slots > 1 else ''}", "bold $accent"))
    return Content.assemble(*parts)


class PhaseIndicator(Static):
    """One line under the agent list; empty when no agent is selected."""

    def show(self, value: Phase | None, *, visible: bool = True, slots: int = 0) -> None:
        """Light the stage of ``value``; ``slots``: issues worked in parallel now."""
        self.update(phase_line(value, slots) if visible else "")

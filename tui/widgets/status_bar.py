"""The bottom line: the selected agent, AUTO or HITL, its project's git state, the daemon link.

It also counts the checkpoints waiting for a decision, so a dialog put aside
with Esc is never forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from common.untrusted_text import printable_line


@dataclass(frozen=True)
class StatusLine:
    """Everything the status bar shows; the screen replaces it whole."""

    agent: str = ""
    mode: str = ""
    project: str = ""
    git: str = ""
    waiting: int = 0
    connection: str = "connecting to the daemon…"
    connected: bool = False


def render_status(line: StatusLine) -> Content:
    """The status line as styled text."""
    parts: list[Content | str] = []
    if line.agent:
        auto = line.mode.startswith("AUTO")
        mode_style = "bold reverse $warning" if auto else "bold reverse $primary"
        parts += [
            Content.styled(f" {line.mode} ", mode_style),
            " ",
            Content.styled(printable_line(line.agent), "bold"),
        ]
        if line.project:
            parts += ["  ", printable_line(line.project)]
        if line.git:  # a branch name the model may have chosen
            parts += [Content.styled(f" ({printable_line(line.git)})", "dim")]
    if line.waiting:
        noun = "checkpoint waits" if line.waiting == 1 else "checkpoints wait"
        parts += ["   ", Content.styled(f"⚑ {line.waiting} {noun} (c to answer)", "bold $warning")]
    link_style = "dim" if line.connected else "bold $error"
    parts += ["   ", Content.styled(line.connection, link_style)]
    return Content.assemble(*parts)


class StatusBar(Static):
    """Docked above the footer."""

    def show(self, line: StatusLine) -> None:
        """Replace what the bar says."""
        self.update(render_status(line))

"""A checkbox whose state reads in text (``[x]`` / ``[ ]``), not by colour alone."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class TextCheckbox(Checkbox):
    """Textual's checkbox shows an ``X`` either way and tells on from off by colour."""

    @property
    def _button(self) -> Content:
        style = "bold $success" if self.value else "$text-muted"
        return Content.styled("[x]" if self.value else "[ ]", style)

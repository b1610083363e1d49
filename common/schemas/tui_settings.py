"""``$HARNESS_HOME/tui_settings.json``: how the TUI behaves for this person (hand-edited).

A missing file means the defaults: checkpoints announce themselves and open
only when asked, and every notification that needs no setup is on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from common.schemas.base import StrictModel


class NotifySettings(StrictModel):
    """How a new waiting checkpoint reaches a person who is not looking at the screen."""

    bell: bool = True
    """Ring the terminal bell."""
    osc: bool = True
    """Desktop notification through the terminal (OSC 9 and OSC 777 sequences)."""
    tmux: bool = True
    """``tmux display-message`` when the TUI runs inside tmux."""
    command: list[str] = Field(default_factory=list)
    """A program and its arguments to run (for example a script that posts to a chat
    webhook); it gets ``HARNESS_AGENT``, ``HARNESS_CHECKPOINT`` and ``HARNESS_MESSAGE``
    in its environment. Empty: none."""


class TuiSettings(StrictModel):
    schema_version: Literal[1] = 1
    auto_open: bool = False
    """Open a new checkpoint's dialog by itself (after :attr:`key_grace_s` it takes keys)."""
    key_grace_s: float = Field(default=0.6, ge=0, le=5)
    """How long a dialog that opened by itself ignores keys already on their way."""
    notify: NotifySettings = Field(default_factory=NotifySettings)

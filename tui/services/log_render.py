"""The agent's plain-text log as compact, coloured lines for the log pane.

The log file stays complete (``harness logs`` prints it as written); only the
pane renders it. A timestamped line is recognised by the prefix the agent
writes (``[tool]``, ``── session``, ``phase →``, ``tests:``, ``committed``, …)
and gets an icon and a colour. A checkpoint banner (the ASCII block that
``render.py`` writes for people reading the file) collapses into one line: the
dialog shows the checkpoint in full. Other untimestamped lines (test output, a
model's multi-line text) are shown dim, as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.text import Text

STAMP = re.compile(r"^(\d\d:\d\d:\d\d) (.*)$")
RULE = "=" * 20
BANNER_TITLE = re.compile(r"^HITL CHECKPOINT: (\S+)\s+\((.+)\)\s*$")


@dataclass(frozen=True)
class Style:
    """How lines that start with ``prefix`` look: an icon and a rich style."""

    prefix: str
    icon: str
    style: str
    keep_prefix: bool = False
    """Whether the prefix stays (``tests:``) or the icon replaces it (``[tool]``)."""


#: First match wins; the order puts the more specific prefixes first.
STYLES = (
    Style("── session ", "▶ session ", "bold cyan"),
    Style("phase → failed", "✗", "bold red", keep_prefix=True),
    Style("phase → ", "➜ phase ", "bold magenta"),
    Style("[tool] ", "  ⚙ ", "yellow"),
    Style("[result:ok] ", "    ✓ ", "dim green"),
    Style("[result:error] ", "    ✗ ", "red"),
    Style("[assistant] ", "  › ", ""),
    Style("[thinking] ", "  ∴ ", "dim italic"),
    Style("[system] ", "  · ", "dim"),
    Style("[cli] ", "  · ", "dim"),
    Style("[policy] ", "  ⛔ policy: ", "bold red"),
    Style("tests:", "◆", "bold blue", keep_prefix=True),
    Style("final tests:", "◆", "bold blue", keep_prefix=True),
    Style("committed ", "✔", "bold green", keep_prefix=True),
    Style("pushed ", "⇡", "bold green", keep_prefix=True),
    Style("created ", "+", "green", keep_prefix=True),
    Style("checkpoint ", "⚑", "bold yellow", keep_prefix=True),
    Style("waiting for a decision", "⚑", "bold reverse yellow", keep_prefix=True),
    Style("resuming checkpoint", "⚑", "yellow", keep_prefix=True),
    Style("error", "✗", "bold red", keep_prefix=True),
)


class LogRenderer:
    """Turns raw log lines into pane lines, one at a time (it remembers banners)."""

    def __init__(self) -> None:
        self._in_banner = False
        self._shortcuts_seen = False

    def reset(self) -> None:
        """The file restarted: forget a half-read banner."""
        self._in_banner = self._shortcuts_seen = False

    def render(self, line: str) -> Text | None:
        """The pane line for ``line``; ``None`` when it is part of a collapsed banner."""
        stamped = STAMP.match(line)
        if self._in_banner and stamped is None:
            return self._banner_line(line)
        self._in_banner = False
        if stamped is None:
            if line.startswith(RULE):
                self._in_banner, self._shortcuts_seen = True, False
                return None
            return Text(line, style="dim")
        stamp, rest = stamped.groups()
        text = Text(f"{stamp} ", style="dim")
        for style in STYLES:
            if rest.startswith(style.prefix):
                body = rest if style.keep_prefix else rest[len(style.prefix) :]
                joiner = " " if style.keep_prefix else ""
                text.append(f"{style.icon}{joiner}{body}", style=style.style)
                return text
        text.append(rest)
        return text

    def _banner_line(self, line: str) -> Text | None:
        """Inside a banner: only its title is shown; the closing rule ends it."""
        title = BANNER_TITLE.match(line)
        if title is not None:
            kind, checkpoint_id = title.groups()
            return Text(
                f"⚑ HITL CHECKPOINT: {kind} ({checkpoint_id}) — c or Enter answers",
                style="bold yellow",
            )
        if line.strip().startswith("TUI SHORTCUTS"):
            self._shortcuts_seen = True
        elif line.startswith(RULE) and self._shortcuts_seen:
            self._in_banner = False
        return None

"""The agent's plain-text log as compact, coloured lines for the log pane.

The log file stays complete (``harness logs`` prints it as written); only the
pane renders it. A timestamped line is recognised by the prefix the agent
writes (``[tool]``, ``── session``, ``phase →``, ``tests:``, ``committed``, …)
and gets an icon in place of (or in front of) the prefix. A checkpoint banner
(the ASCII block ``render.py`` writes for people reading the file) collapses
into one line: the dialog shows the checkpoint in full.

Nothing in a line acts on the terminal or hides: each is escaped
(:func:`~common.untrusted_text.printable_line`) before it is matched, and the
model's words keep a "model:" label after their icon.

Rendering makes plain strings, so the pane can stay Textual's fast ``Log``
(thousands of lines a second); the colours come from :class:`LogHighlighter`,
which the ``Log`` applies only to the lines on screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rich.highlighter import Highlighter
from rich.text import Text

from common.untrusted_text import MODEL_MARK, printable_line

STAMP = re.compile(r"^(\d\d:\d\d:\d\d) (.*)$")
RULE = "=" * 20
BANNER_TITLE = re.compile(r"^HITL CHECKPOINT: (\S+)\s+\((.+)\)\s*$")
#: What a wrapped line's continuation rows start with (under the text, past the stamp).
CONTINUATION = " " * 9


@dataclass(frozen=True)
class Kind:
    """Lines that start with ``prefix``: shown with ``icon`` and coloured ``style``."""

    prefix: str
    icon: str
    style: str
    keep_prefix: bool = False
    """Whether the prefix stays (``tests:``) or the icon replaces it (``[tool]``)."""


#: First match wins; the order puts the more specific prefixes first.
KINDS = (
    Kind("── session ", "▶ session ", "bold cyan"),
    Kind("phase → failed", "✗", "bold red", keep_prefix=True),
    Kind("phase → ", "➜ phase ", "bold magenta"),
    Kind("[tool] ", "  ⚙ ", "yellow"),
    Kind("[result:ok] ", "    ✓ ", "green"),
    Kind("[result:error] ", "    ✗ ", "red"),
    Kind(f"{MODEL_MARK} ", "  › model: ", "default"),
    Kind("[assistant] ", "  › model: ", "default"),  # logs written before MODEL_MARK
    Kind("[thinking] ", "  ∴ ", "italic"),
    Kind("[system] ", "  · ", "dim"),
    Kind("[cli] ", "  · ", "dim"),
    # An allowed call is the common case (dozens a run): plain, no alarm glyph. Only a
    # denial (and a rejected forgery, a refused request) is red with ⛔.
    Kind("[policy] allow ", "  · policy: allow ", "default"),
    Kind("[policy] ", "  ⛔ policy: ", "bold red"),
    Kind("tests:", "◆", "bold blue", keep_prefix=True),
    Kind("final tests:", "◆", "bold blue", keep_prefix=True),
    Kind("committed ", "✔", "bold green", keep_prefix=True),
    Kind("pushed ", "⇡", "bold green", keep_prefix=True),
    Kind("created ", "+", "green", keep_prefix=True),
    Kind("checkpoint ", "⚑", "bold yellow", keep_prefix=True),
    Kind("waiting for a decision", "⚑", "bold reverse yellow", keep_prefix=True),
    Kind("resuming checkpoint", "⚑", "yellow", keep_prefix=True),
    Kind("error", "✗", "bold red", keep_prefix=True),
)
BANNER_STYLE = "bold yellow"


def _shown_as(kind: Kind) -> str:
    """How a line of ``kind`` starts on screen, after its time stamp."""
    return kind.icon + (" " + kind.prefix if kind.keep_prefix else "")


#: Rendered start of a line → its style (for the highlighter), longest first.
_STYLE_BY_START = sorted(
    ((_shown_as(kind), kind.style) for kind in KINDS), key=lambda pair: -len(pair[0])
)


class LogRenderer:
    """Turns raw log lines into pane lines, one at a time (it remembers banners)."""

    def __init__(self) -> None:
        self._in_banner = False
        self._shortcuts_seen = False

    def reset(self) -> None:
        """The file restarted: forget a half-read banner."""
        self._in_banner = self._shortcuts_seen = False

    def render(self, line: str) -> str | None:
        """The pane line for ``line``; ``None`` when it is part of a collapsed banner.

        Escaped again here (:func:`printable_line`): the file may hold raw bytes from an
        older harness or from a program's output.
        """
        line = printable_line(line)
        stamped = STAMP.match(line)
        if self._in_banner and stamped is None:
            return self._banner_line(line)
        self._in_banner = False
        if stamped is None:
            if line.startswith(RULE):
                self._in_banner, self._shortcuts_seen = True, False
                return None
            return line
        stamp, rest = stamped.groups()
        for kind in KINDS:
            if rest.startswith(kind.prefix):
                body = rest if kind.keep_prefix else rest[len(kind.prefix) :]
                joiner = " " if kind.keep_prefix else ""
                return f"{stamp} {kind.icon}{joiner}{body}"
        return line

    def _banner_line(self, line: str) -> str | None:
        """Inside a banner: only its title is shown; the closing rule ends it."""
        title = BANNER_TITLE.match(line)
        if title is not None:
            kind, checkpoint_id = title.groups()
            return f"⚑ HITL CHECKPOINT: {kind} ({checkpoint_id}) — c or Enter answers"
        if line.strip().startswith("TUI SHORTCUTS"):
            self._shortcuts_seen = True
        elif line.startswith(RULE) and self._shortcuts_seen:
            self._in_banner = False
        return None


class LogHighlighter(Highlighter):
    """Colours one pane line by what :class:`LogRenderer` put at its start."""

    def highlight(self, text: Text) -> None:
        plain = text.plain
        if plain.startswith("⚑ HITL CHECKPOINT"):
            text.stylize(BANNER_STYLE)
            return
        stamped = STAMP.match(plain)
        if stamped is None:
            if not plain.startswith(CONTINUATION):
                text.stylize("dim")  # test output, a model's multi-line text
            return
        text.stylize("dim", 0, 8)
        rest = stamped.group(2)
        for start, style in _STYLE_BY_START:
            if rest.startswith(start):
                text.stylize(style, 9)
                return


def wrap(line: str, width: int) -> list[str]:
    """``line`` as rows of at most ``width`` characters; continuation rows are indented."""
    if width <= len(CONTINUATION) + 10 or len(line) <= width:
        return [line]
    rows = [line[:width]]
    step = width - len(CONTINUATION)
    rows += [CONTINUATION + line[start : start + step] for start in range(width, len(line), step)]
    return rows

"""GitLab's quick actions, as the local GitLab carries them out.

Why the stand-in needs them: GitLab runs a line such as ``/close`` or
``/label ~done`` found in an issue or merge request description, or in a note,
as a command of the user whose token wrote the text, and removes the line from
what it stores. Text the model wrote reaches GitLab through the harness's token
(issue descriptions from enrichment, handoff notes, the merge request's
description), so without this the tests could not show that a ``/close`` or
``/merge`` the model wrote stays text.

The rule follows GitLab's extractor (``Gitlab::QuickActions::Extractor``):
carriage returns are dropped first; a command is a line that starts with ``/``
and a known name (any case), optionally followed by a space and an argument;
lines inside a fenced code block (```` ``` ````) and inside a ``>>>`` quote block
are left alone; an unknown ``/word`` stays text.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

ISSUE_COMMANDS = frozenset({"close", "reopen", "label", "unlabel", "title"})
"""The commands the stand-in carries out on issues."""
MERGE_REQUEST_COMMANDS = frozenset({"close", "reopen", "label", "unlabel", "title", "merge"})
"""The commands the stand-in carries out on merge requests."""

_COMMAND = re.compile(r"^/(?P<cmd>[A-Za-z_]+)(?: (?P<arg>.*))?\s*$")
_FENCE = "```"
_QUOTE = ">>>"


@dataclass(frozen=True)
class QuickAction:
    """One command found in a text, lower-cased, with its argument."""

    name: str
    argument: str = ""

    def labels(self) -> list[str]:
        """``~a ~"b c"`` as ``["a", "b c"]``: the argument of ``/label`` and ``/unlabel``."""
        try:
            words = shlex.split(self.argument)
        except ValueError:
            words = self.argument.split()
        return [word.removeprefix("~") for word in words if word.removeprefix("~")]


def extract(text: str, known: frozenset[str]) -> tuple[str, list[QuickAction]]:
    """The text GitLab stores (command lines removed) and the commands it carries out."""
    kept: list[str] = []
    found: list[QuickAction] = []
    block: str | None = None
    for line in text.replace("\r", "").split("\n"):
        if block is not None:
            kept.append(line)
            if line == block:
                block = None
            continue
        if line.startswith(_FENCE) or line == _QUOTE:
            block = _FENCE if line.startswith(_FENCE) else _QUOTE
            kept.append(line)
            continue
        match = _COMMAND.match(line)
        if match is not None and match["cmd"].lower() in known:
            found.append(QuickAction(match["cmd"].lower(), (match["arg"] or "").strip()))
            continue
        kept.append(line)
    return "\n".join(kept).rstrip(), found

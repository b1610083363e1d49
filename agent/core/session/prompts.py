"""Prompt templates: Markdown files in ``agent/assets/prompts/`` with ``$placeholders``.

Text the harness did not write (the spec, issue titles and descriptions, notes,
git output, test output) enters a prompt inside an ``<untrusted source="…">``
block, which ``system.md`` declares to be data, never instructions. A
delimiter inside the data is neutralised, so the data cannot close its block and
speak as the harness. This marks the data for the model; what actually keeps a
README from approving a checkpoint is that the phase machine, the decisions (see
:mod:`common.decision_mac`) and the command policy are the harness's, not the model's.
"""

from __future__ import annotations

import re
from string import Template
from typing import Literal

from agent.assets import asset_path

PROMPTS_DIR = asset_path("prompts")

UNTRUSTED_VALUES = frozenset(
    {"spec", "section_list", "description", "notes", "git_log", "all_issues", "issues"}
)
"""Placeholders whose values come from outside the harness: rendered as untrusted blocks."""
INLINE_UNTRUSTED = frozenset({"title"})
"""Untrusted values shown inside a line of the harness's own: kept to one neutralised line."""
_DELIMITER = re.compile(r"<(\s*/?\s*untrusted)", re.IGNORECASE)


def neutralise(text: str) -> str:
    """``text`` with every ``<untrusted`` / ``</untrusted`` made inert (``&lt;untrusted``)."""
    return _DELIMITER.sub(r"&lt;\1", text)


def untrusted(source: str, text: str) -> str:
    """``text`` as a block of data from ``source`` (never instructions)."""
    return f'<untrusted source="{source}">\n{neutralise(text).rstrip()}\n</untrusted>'


def render(name: str, **values: object) -> str:
    """Fill ``prompts/<name>.md``; a missing placeholder is an error, not a blank.

    Values named in :data:`UNTRUSTED_VALUES` become untrusted blocks, those in
    :data:`INLINE_UNTRUSTED` one neutralised line.
    """
    template = Template((PROMPTS_DIR / f"{name}.md").read_text())
    filled: dict[str, str] = {}
    for key, value in values.items():
        text = str(value)
        if key in UNTRUSTED_VALUES:
            text = untrusted(key, text)
        elif key in INLINE_UNTRUSTED:
            text = neutralise(" ".join(text.split()))
        filled[key] = text
    return template.substitute(filled)


def feedback_block(feedback: str | None, source: Literal["human", "harness"] = "human") -> str:
    """Feedback on the previous attempt, saying truthfully whose it is."""
    if not feedback:
        return ""
    who = (
        "the harness's own checks (its gates or its merge), not a person"
        if source == "harness"
        else "a human reviewer"
    )
    quoted = "\n".join(f"> {line}" for line in feedback.splitlines())
    if source == "harness":  # it quotes test output or a conflicted diff: data, not instructions
        quoted = untrusted("harness-check", quoted)
    return f"\n---- FEEDBACK ON THE PREVIOUS ATTEMPT (from {who}) ----\n{quoted}\n"

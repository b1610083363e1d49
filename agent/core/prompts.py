"""Prompt templates: Markdown files in ``prompts/`` with ``$placeholders``."""

from __future__ import annotations

from pathlib import Path
from string import Template
from typing import Literal

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


def render(name: str, **values: object) -> str:
    """Fill ``prompts/<name>.md``; a missing placeholder is an error, not a blank."""
    template = Template((PROMPTS_DIR / f"{name}.md").read_text())
    return template.substitute({key: str(value) for key, value in values.items()})


def feedback_block(feedback: str | None, source: Literal["human", "harness"] = "human") -> str:
    """Feedback on the previous attempt, saying truthfully whose it is."""
    if not feedback:
        return ""
    who = (
        "the harness's own checks (its test gate), not a person"
        if source == "harness"
        else "a human reviewer"
    )
    quoted = "\n".join(f"> {line}" for line in feedback.splitlines())
    return f"\n---- FEEDBACK ON THE PREVIOUS ATTEMPT (from {who}) ----\n{quoted}\n"

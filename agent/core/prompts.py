"""Prompt templates: Markdown files in ``prompts/`` with ``$placeholders``."""

from __future__ import annotations

from pathlib import Path
from string import Template

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


def render(name: str, **values: object) -> str:
    """Fill ``prompts/<name>.md``; a missing placeholder is an error, not a blank."""
    template = Template((PROMPTS_DIR / f"{name}.md").read_text())
    return template.substitute({key: str(value) for key, value in values.items()})


def feedback_block(feedback: str | None) -> str:
    """The human's rejection reason, phrased for the next attempt."""
    if not feedback:
        return ""
    return f"\nA human reviewer rejected the previous attempt with this feedback:\n> {feedback}\n"

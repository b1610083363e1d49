"""The corpus: hundreds of dangerous commands all denied, ordinary ones all allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.policy import PolicyContext, judge_command

DATA = Path(__file__).parent / "data"


def load(name: str) -> list[str]:
    """The commands of a data file: one a line, ``#`` comments, ``\\n`` for a newline."""
    lines = (DATA / name).read_text().splitlines()
    return [
        line.replace("\\n", "\n") for line in lines if line.strip() and not line.startswith("#")
    ]


DANGEROUS = load("dangerous.txt")
ORDINARY = load("ordinary.txt")


def test_the_corpus_is_large_enough() -> None:
    assert len(DANGEROUS) >= 300
    assert len(ORDINARY) >= 150
    assert len(set(DANGEROUS)) == len(DANGEROUS), "a dangerous command is listed twice"
    assert len(set(ORDINARY)) == len(ORDINARY), "an ordinary command is listed twice"


@pytest.mark.parametrize("command", DANGEROUS)
def test_dangerous_commands_are_denied(context: PolicyContext, command: str) -> None:
    reason = judge_command(command, context)

    assert reason is not None, f"allowed: {command!r}"
    assert reason.strip() and "\n" not in reason


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_are_allowed(context: PolicyContext, command: str) -> None:
    assert judge_command(command, context) is None

"""The corpus: hundreds of dangerous commands all denied, ordinary ones all allowed.

Judged twice: as an unsandboxed agent's command (``"sandbox": false``, today's strict
rules) and as a sandboxed agent's (issue 15: judged by consequence). ``dangerous.txt``
is denied to both; ``dangerous_unsandboxed.txt`` holds the classes the sandbox makes
harmless, denied unsandboxed and allowed sandboxed. ``ordinary.txt`` is allowed to both
up to its ``=== allowed when sandboxed`` marker; the forms below it are the relaxations,
allowed sandboxed and denied unsandboxed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agent.core.policy import PolicyContext, judge_command

DATA = Path(__file__).parent / "data"
SANDBOXED_MARKER = "# === allowed when sandboxed"


def load(name: str, *, until: str | None = None, after: str | None = None) -> list[str]:
    """The commands of a data file: one a line, ``#`` comments, ``\\n`` for a newline;
    only those before the line starting with ``until`` or after the one with ``after``."""
    lines = (DATA / name).read_text().splitlines()
    marks = [i for i, line in enumerate(lines) if line.startswith(until or after or "\0")]
    if until is not None and marks:
        lines = lines[: marks[0]]
    if after is not None:
        lines = lines[marks[0] + 1 :] if marks else []
    return [
        line.replace("\\n", "\n") for line in lines if line.strip() and not line.startswith("#")
    ]


DANGEROUS = load("dangerous.txt")
DANGEROUS_UNSANDBOXED = load("dangerous_unsandboxed.txt")
ORDINARY = load("ordinary.txt", until=SANDBOXED_MARKER)
ORDINARY_SANDBOXED = load("ordinary.txt", after=SANDBOXED_MARKER)


@pytest.fixture
def sandboxed(context: PolicyContext) -> PolicyContext:
    return dataclasses.replace(context, sandboxed=True)


def test_the_corpus_is_large_enough() -> None:
    everything = [*DANGEROUS, *DANGEROUS_UNSANDBOXED, *ORDINARY, *ORDINARY_SANDBOXED]
    assert len(DANGEROUS) >= 300
    assert len(ORDINARY) >= 150
    assert len(ORDINARY_SANDBOXED) >= 40
    assert len(DANGEROUS_UNSANDBOXED) >= 40
    assert len(set(everything)) == len(everything), "a command is listed twice"


@pytest.mark.parametrize("command", DANGEROUS)
def test_dangerous_commands_are_denied(
    context: PolicyContext, sandboxed: PolicyContext, command: str
) -> None:
    for judged_as in (context, sandboxed):
        reason = judge_command(command, judged_as)

        assert reason is not None, f"allowed (sandboxed={judged_as.sandboxed}): {command!r}"
        assert reason.strip() and "\n" not in reason


@pytest.mark.parametrize("command", DANGEROUS_UNSANDBOXED)
def test_what_the_sandbox_makes_harmless_is_denied_only_unsandboxed(
    context: PolicyContext, sandboxed: PolicyContext, command: str
) -> None:
    assert judge_command(command, context) is not None, f"allowed unsandboxed: {command!r}"
    assert judge_command(command, sandboxed) is None


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_are_allowed(
    context: PolicyContext, sandboxed: PolicyContext, command: str
) -> None:
    assert judge_command(command, context) is None
    assert judge_command(command, sandboxed) is None


@pytest.mark.parametrize("command", ORDINARY_SANDBOXED)
def test_the_relaxed_forms_are_allowed_only_sandboxed(
    context: PolicyContext, sandboxed: PolicyContext, command: str
) -> None:
    assert judge_command(command, sandboxed) is None
    assert judge_command(command, context) is not None, f"allowed unsandboxed: {command!r}"

"""Denials fall into fixed classes: what metrics name, never the model's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.policy import PolicyContext
from agent.core.policy.denial_class import denial_class
from agent.core.session.hooks import ToolPolicy
from common.schemas.policy_counts import DenialClass


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("Bash", {"command": "curl https://example.org"}, DenialClass.COMMAND_NETWORK),
        ("Bash", {"command": "git push origin main"}, DenialClass.COMMAND_GIT),
        ("Bash", {"command": 'eval "$X"'}, DenialClass.COMMAND),
        ("Bash", {"command": "sudo ls"}, DenialClass.COMMAND),
        ("Read", {"file_path": "/etc/passwd"}, DenialClass.OUTSIDE_PROJECT),
        ("Write", {"file_path": ".git/config", "content": "x"}, DenialClass.PROTECTED_WRITE),
    ],
)
def test_the_policys_own_reasons_fall_into_their_class(
    project: Path, tool: str, tool_input: dict[str, str], expected: DenialClass
) -> None:
    policy = ToolPolicy(project, PolicyContext.for_project(project))
    reason = policy.check(tool, tool_input, project)

    assert reason is not None
    assert denial_class(tool, reason) is expected


def test_a_command_the_judge_cannot_follow_is_too_complex() -> None:
    assert denial_class(
        "Bash", "the harness could not parse this command; write it more simply"
    ) is (DenialClass.COMMAND_TOO_COMPLEX)


def test_text_the_model_chose_never_becomes_a_class() -> None:
    reason = 'cat "} evil{label=x" is outside the project directory /p'

    assert denial_class("Bash", reason) in set(DenialClass)
    assert denial_class("Grep", reason) is DenialClass.OUTSIDE_PROJECT

"""``uv venv``: its options read as uv reads them, so only the folder is judged as one.

``--prompt NAME`` names a prompt, ``--link-mode copy`` a strategy: neither is a folder,
and a folder after them is still the folder, held to the project like any write.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from agent.core.policy import PolicyContext, judge_command
from agent.core.policy.syntax import Word
from agent.core.policy.tools import uv_venv_arguments
from common.schemas.policy import PolicySettings


@pytest.fixture
def sandboxed(context: PolicyContext) -> PolicyContext:
    return dataclasses.replace(context, sandboxed=True)


def verdict(context: PolicyContext, command: str) -> str:
    return judge_command(command, context) or "allow"


def words(command: str) -> list[Word]:
    return [Word(text, text) for text in command.split()]


@pytest.mark.parametrize(
    ("command", "options", "folders"),
    [
        ("", [], []),
        (".venv", [], [".venv"]),
        ("--prompt /etc/motd", [("--prompt", "/etc/motd")], []),
        ("--prompt myenv .venv", [("--prompt", "myenv")], [".venv"]),
        ("--prompt=myenv env2", [("--prompt", "myenv")], ["env2"]),
        (".venv -p 3.12 --seed", [("-p", "3.12")], [".venv"]),
        ("-p3.12 env2", [("-p", "3.12")], ["env2"]),
        ("-p=3.12 env2", [("-p", "3.12")], ["env2"]),
        ("-qp 3.12 env2", [("-p", "3.12")], ["env2"]),
        ("-qvp3.12", [("-p", "3.12")], []),
        ("-q --relocatable --clear env2", [], ["env2"]),
        ("--link-mode copy --index-strategy unsafe-best-match env2",
         [("--link-mode", "copy"), ("--index-strategy", "unsafe-best-match")], ["env2"]),
        ("--directory src --cache-dir .c", [("--directory", "src"), ("--cache-dir", ".c")], []),
        ("-- --prompt", [], ["--prompt"]),
        ("--prompt", [], []),
    ],
)  # fmt: skip
def test_options_take_their_values_and_the_rest_is_the_folder(
    command: str, options: list[tuple[str, str]], folders: list[str]
) -> None:
    found, positionals = uv_venv_arguments(words(command))

    assert [(option, value.text) for option, value in found] == options
    assert [word.text for word in positionals] == folders


@pytest.mark.parametrize(
    "command",
    [
        "uv venv",
        "uv venv --prompt /etc/motd",
        "uv venv --prompt ../elsewhere .venv",
        "uv venv --prompt=/tmp/name",
        "uv venv -p 3.12 --prompt 'my env' .venv-test",
        "uv venv -qp 3.12 env2",
        "uv venv --python .venv/bin/python env2",
        "uv venv --link-mode copy --relocatable --seed .venv",
        "uv venv --cache-dir .uv-cache .venv",
        "uv venv --directory src",
        "uv venv --directory src env2",
        "uv venv --allow-existing --clear -- .venv",
    ],
)
def test_a_venv_in_the_project_is_allowed_whatever_its_prompt(
    sandboxed: PolicyContext, command: str
) -> None:
    assert verdict(sandboxed, command) == "allow"


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("uv venv --prompt x /tmp/env", "/tmp/env is outside the project"),
        ("uv venv /tmp/env --prompt x", "/tmp/env is outside the project"),
        ("uv venv --prompt=x ../env", "../env is outside the project"),
        ("uv venv --link-mode copy /tmp/env", "/tmp/env is outside the project"),
        ("uv venv -p /tmp/python3 .venv", "/tmp/python3 is outside the project"),
        ("uv venv -qp/tmp/python3", "/tmp/python3 is outside the project"),
        ("uv venv --cache-dir /tmp/cache", "/tmp/cache is outside the project"),
        ("uv venv --directory /tmp", "the folder /tmp is outside the project"),
        ("uv venv --directory src ../../env", "src/../../env is outside the project"),
        ("uv venv --prompt x $HOME/env", "built from a variable or substitution"),
        ("uv venv --index-url https://x", "uv venv --index-url fetches packages"),
        ("uv venv -i https://x .venv", "uv venv -i fetches packages"),
        ("uv venv --find-links=wheels", "uv venv --find-links fetches packages"),
        ("uv venv --allow-insecure-host h", "uv venv --allow-insecure-host fetches packages"),
    ],
)
def test_the_real_folder_and_the_interpreter_are_still_judged(
    sandboxed: PolicyContext, command: str, reason: str
) -> None:
    assert reason in verdict(sandboxed, command)


def test_unsandboxed_uv_venv_needs_the_network_setting_then_reads_the_same_way(
    project: Path, context: PolicyContext
) -> None:
    assert "uv venv fetches packages" in verdict(context, "uv venv --prompt x")
    opened = PolicyContext.for_project(project, PolicySettings(allow_network=True))

    assert verdict(opened, "uv venv --prompt /etc/motd .venv") == "allow"
    assert "/tmp/env is outside the project" in verdict(opened, "uv venv --prompt x /tmp/env")

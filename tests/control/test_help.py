"""``--help`` is read in a terminal: no reStructuredText markup in any of it."""

from __future__ import annotations

import argparse

import pytest

from agent.control.parser import build_parser
from agent.gitlab_local.__main__ import main as gitlab_local_main
from agent.process import main as agent_process
from common.help_text import plain


def subcommand_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def assert_plain(text: str) -> None:
    assert "``" not in text and ":mod:" not in text and ":func:" not in text, text


def test_every_harness_command_help_is_plain() -> None:
    parser = build_parser()
    children = subcommand_parsers(parser)
    assert {"run", "resume", "list", "logs", "remove"} <= set(children)

    assert_plain(parser.format_help())
    for child in children.values():
        assert_plain(child.format_help())


@pytest.mark.parametrize(
    "entry", [agent_process.main, gitlab_local_main], ids=["agent.process", "gitlab_local"]
)
def test_module_docstrings_used_as_help_are_plain(
    entry: object, capsys: pytest.CaptureFixture[str]
) -> None:
    assert callable(entry)
    with pytest.raises(SystemExit):
        entry(["--help"])

    assert_plain(capsys.readouterr().out)


def test_plain_keeps_the_words_of_the_markup() -> None:
    assert (
        plain("``harness run`` (see :mod:`common.secrets`)") == "harness run (see common.secrets)"
    )
    assert plain(None) is None

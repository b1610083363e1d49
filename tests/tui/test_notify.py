"""The notifier's channels: bell, OSC 9/777 (tmux-wrapped inside tmux), tmux, a command."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from common.schemas.tui_settings import NotifySettings
from tui.services.notify import Notifier, osc_sequences, tmux_literal


def test_osc_sequences_are_wrapped_for_tmux_and_cannot_be_broken_out_of() -> None:
    plain = osc_sequences("agent_1 waits; \x1b]evil\a", in_tmux=False)
    shown = "agent_1 waits, \\x1b]evil\\x07"  # escaped in sight, not silently dropped
    assert plain == f"\x1b]9;{shown}\a\x1b]777;notify;coding-harness;{shown}\a"
    wrapped = osc_sequences("hi", in_tmux=True)
    assert (
        wrapped
        == "\x1bPtmux;\x1b\x1b]9;hi\a\x1b\\\x1bPtmux;\x1b\x1b]777;notify;coding-harness;hi\a\x1b\\"
    )


async def test_the_command_gets_the_agent_and_checkpoint_and_tmux_is_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out.txt"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    tmux_calls = tmp_path / "tmux.txt"
    (fake_bin / "tmux").write_text(f'#!/bin/sh\necho "$@" >> {tmux_calls}\n')
    (fake_bin / "tmux").chmod(0o755)
    script = (
        "import os, pathlib; pathlib.Path(os.environ['OUT']).write_text("
        "os.environ['HARNESS_AGENT'] + '|' + os.environ['HARNESS_CHECKPOINT'] + '|' "
        "+ os.environ['HARNESS_MESSAGE'])"
    )
    settings = NotifySettings(bell=False, osc=True, command=[sys.executable, "-c", script])
    written: list[str] = []
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    notifier = Notifier(settings, written.append, environ={"TMUX": "/tmp/tmux-0/default,1,0"})
    await notifier.announce("agent_2", "mr_review")
    assert out.read_text() == "agent_2|mr_review|agent_2 waits at mr_review"
    assert tmux_calls.read_text() == "display-message ⚑ agent_2 waits at mr_review\n"
    assert written and written[0].startswith("\x1bPtmux;")  # no bell, OSC wrapped for tmux


async def test_a_failing_command_is_logged_not_raised(tmp_path: Path) -> None:
    settings = NotifySettings(bell=True, osc=False, tmux=False, command=[str(tmp_path / "nope")])
    written: list[str] = []
    await Notifier(settings, written.append, environ={}).announce("agent_1", "issue_closure")
    assert written == ["\a"]


@pytest.mark.parametrize(
    ("message", "shown"),
    [
        ("a\x9cb", "a\\x9cb"),  # C1 string terminator: would end the OSC early
        ("a\x9d0;t", "a\\x9d0,t"),  # C1 OSC introducer
        ("a\u202eb\u200b", "a<U+202E>b<U+200B>"),
        ("a\nb\r", "a\\nb\\r"),
    ],
)
def test_no_control_bidi_or_invisible_character_enters_an_osc_notification(
    message: str, shown: str
) -> None:
    assert osc_sequences(message, in_tmux=False).startswith(f"\x1b]9;{shown}\a")


def test_tmux_is_shown_a_format_as_text() -> None:
    """``display-message`` expands ``#(cmd)``: the harness's message doubles every ``#``."""
    assert tmux_literal("agent #(touch /tmp/x) #{pane_id}") == "agent ##(touch /tmp/x) ##{pane_id}"


async def test_a_reminder_says_its_own_message_on_every_channel_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reminder's text replaces ``<agent> waits at <checkpoint>``; it is escaped the same
    way (a control character cannot end the OSC, a ``#`` cannot run a tmux command)."""
    out = tmp_path / "out.txt"
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    tmux_calls = tmp_path / "tmux.txt"
    (fake_bin / "tmux").write_text(f'#!/bin/sh\necho "$@" >> {tmux_calls}\n')
    (fake_bin / "tmux").chmod(0o755)
    script = (
        "import os, pathlib; "
        "pathlib.Path(os.environ['OUT']).write_text(os.environ['HARNESS_MESSAGE'])"
    )
    settings = NotifySettings(bell=True, osc=True, command=[sys.executable, "-c", script])
    written: list[str] = []
    monkeypatch.setenv("OUT", str(out))
    monkeypatch.setenv("PATH", f"{fake_bin}:{os.environ['PATH']}")
    notifier = Notifier(settings, written.append, environ={"TMUX": "/tmp/tmux-0/default,1,0"})
    message = "agent_1 has waited 1h02m: issue_closure of #3\x1b]9;x\a"
    await notifier.announce("agent_1", "issue_closure", message)
    shown = "agent_1 has waited 1h02m: issue_closure of #3\\x1b]9,x\\x07"
    assert out.read_text() == "agent_1 has waited 1h02m: issue_closure of #3\\x1b]9;x\\x07"
    assert tmux_calls.read_text() == (
        "display-message ⚑ agent_1 has waited 1h02m: issue_closure of ##3\\x1b]9;x\\x07\n"
    )
    assert written[0].startswith("\a\x1bPtmux;\x1b\x1b]9;" + shown + "\a")

"""How to answer, in the words of where the checkpoint is read.

``harness checkpoint`` is read in a shell: it names the ``harness approve|reject``
commands, never TUI keys. The agent's log keeps the TUI's keys (the log pane
collapses the banner at its ``TUI SHORTCUTS`` block).
"""

from __future__ import annotations

import pytest

from common.schemas.checkpoint import Checkpoint, RegressionApprovalCheckpoint
from common.workspace.render import render_checkpoint
from tests.core.checkpoint_samples import every_type
from tui.services.log_render import LogRenderer


@pytest.mark.parametrize("checkpoint", every_type(), ids=lambda c: c.type.value)
def test_the_cli_view_names_the_commands_not_the_keys(checkpoint: Checkpoint) -> None:
    text = render_checkpoint(checkpoint, agent="demo-7")

    assert "TUI SHORTCUTS" not in text and "[Y]" not in text and "[X]" not in text
    assert "harness approve demo-7" in text
    if isinstance(checkpoint, RegressionApprovalCheckpoint):
        assert "--choice fix_now|defer|abort" in text and "harness reject" not in text
    else:
        assert "harness reject demo-7 --reason TEXT" in text


def test_a_hostile_agent_name_is_quoted_for_the_shell() -> None:
    [first, *_] = every_type()
    text = render_checkpoint(first, agent="x; rm -rf ~")
    assert "harness approve 'x; rm -rf ~'" in text


def test_the_log_banner_keeps_the_tui_keys_and_still_collapses() -> None:
    [first, *_] = every_type()
    text = render_checkpoint(first)
    assert "TUI SHORTCUTS" in text and "harness approve" not in text
    renderer = LogRenderer()
    shown = [line for line in map(renderer.render, text.splitlines()) if line is not None]
    assert len(shown) == 1 and shown[0].startswith("⚑ HITL CHECKPOINT")

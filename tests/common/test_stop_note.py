"""The daemon's note says who stopped an agent, for that agent's process alone."""

from __future__ import annotations

from pathlib import Path

from common.workspace.stop_note import BY_SIGNAL, NOTE_NAME, stop_reason, write_note


def test_the_note_names_who_asked_for_its_own_pid_only(tmp_path: Path) -> None:
    assert stop_reason(tmp_path, 41) == BY_SIGNAL  # no note: a signal from nobody known

    write_note(tmp_path, 41, "cli:alice")

    assert stop_reason(tmp_path, 41) == "stopped by cli:alice"
    assert stop_reason(tmp_path, 42) == BY_SIGNAL  # an old note explains no later kill
    (tmp_path / NOTE_NAME).write_text("{not json")
    assert stop_reason(tmp_path, 41) == BY_SIGNAL

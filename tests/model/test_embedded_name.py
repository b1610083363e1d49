"""The embedded model is named by the playbook it plays, never by the Claude model name the
CLI gives it (``claude-opus-…``): in the session's first log line."""

from __future__ import annotations

from pathlib import Path

from agent.core.session.session_log import init_line
from agent.model.playbook import DEMO_PLAYBOOK
from agent.process.model_access import embedded_name


def test_the_demo_playbook_is_named_as_such() -> None:
    assert embedded_name(None) == "embedded model playing the demo playbook"
    assert embedded_name(DEMO_PLAYBOOK) == "embedded model playing the demo playbook"
    web = DEMO_PLAYBOOK.parent / "web" / "playbook.json"
    assert embedded_name(web) == "embedded model playing the web demo playbook"
    own = Path("/cases/py-fizzbuzz/playbook.json")
    assert embedded_name(own) == "embedded model playing playbook py-fizzbuzz/playbook.json"


def test_the_session_line_names_the_playbook_and_a_claude_model_as_reported() -> None:
    played = embedded_name(None)
    assert init_line("claude-opus-5-5", played) == f"[system] session initialised ({played})"
    assert init_line("claude-sonnet-4-5", None) == (
        "[system] session initialised (claude-sonnet-4-5)"
    )

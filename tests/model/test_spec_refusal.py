"""The embedded model's refusal of a spec it cannot play, decided where the model is chosen."""

from __future__ import annotations

from pathlib import Path

from agent.assets import asset_path
from agent.model.playbook import DEMO_PLAYBOOK, ONLY_THE_DEMO
from agent.process.model_access import playbook_refusal


def test_the_demo_playbook_takes_the_demo_spec_and_refuses_any_other() -> None:
    refusal = playbook_refusal(DEMO_PLAYBOOK)
    assert refusal(asset_path("demo", "spec.md").read_text()) is None
    assert refusal("# inventory service\n\nAdd a REST endpoint for stock levels.") == ONLY_THE_DEMO


def test_a_playbook_without_a_spec_match_takes_any_spec(tmp_path: Path) -> None:
    playbook = tmp_path / "any.json"
    playbook.write_text('{"schema_version": 1, "scenarios": [], "fallback_text": "no"}')
    assert playbook_refusal(playbook)("# anything at all") is None

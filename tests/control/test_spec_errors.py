"""A spec refused by its schema is named as the person wrote it: the JSON's own path, a
key as a key (with the one meant), no class name of ours."""

from __future__ import annotations

import json

import pytest

from agent.frontend.specs import parse_specs
from common.errors import SpecError

BASE = {"spec_file": "/s.md", "project_dir": "/p", "target_branch": "main"}
TYPES = (
    "(one of default, project_verification, spec_to_issues, issue_enrichment, "
    "regression_approval, issue_selection, issue_closure, mr_phase_transition, mr_review, "
    "budget_reached, enrichment_scope, merge_conflict)"
)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"auto_accept": {"issue_closur": "ask"}},
            "--specs[0].auto_accept: 'issue_closur' is not a checkpoint type; "
            f"did you mean 'issue_closure'? {TYPES}",
        ),
        (
            {"auto_accept": {"issue_closure": "maybe"}},
            "--specs[0].auto_accept.issue_closure: input should be 'approve' or 'ask'",
        ),
        (
            {"auto_accept": "yes"},
            "--specs[0].auto_accept: should be true, false or rules per checkpoint type, such "
            'as {"default": "approve", "issue_closure": "ask"}',
        ),
        ({"notify": "x"}, "--specs[0].notify: input should be an object"),
        (
            {"budgets": {"turns_per_sesion": 3}},
            "--specs[0].budgets.turns_per_sesion: extra inputs are not permitted "
            "(did you mean 'turns_per_session'?)",
        ),
        (
            {"checkpoint_timeout": {"minuts": 3}},
            "--specs[0].checkpoint_timeout.minuts: extra inputs are not permitted "
            "(did you mean 'minutes'?)",
        ),
        (
            {"mcp_servers": [{"name": "a"}]},
            "--specs[0].mcp_servers[0]: MCP server 'a' needs either command or url (not both)",
        ),
        ({"colour": 1}, "--specs[0].colour: extra inputs are not permitted"),
    ],
)
def test_a_refusal_names_the_field_as_written(extra: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError) as refused:
        parse_specs(json.dumps([{**BASE, **extra}]))

    assert str(refused.value) == message
    assert "types" not in str(refused.value) and "[key]" not in str(refused.value)
    assert "instance of" not in str(refused.value)

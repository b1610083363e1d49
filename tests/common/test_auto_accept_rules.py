"""Auto-accept rules: the spec's forms, the CLI's text, the rule a decision names, old files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from common.schemas.auto_accept import AutoAcceptRules, AutoAcceptRulesError, parse_rules
from common.schemas.checkpoint_type import CheckpointType
from common.schemas.spec import AgentSpec
from common.schemas.workspace import WorkspaceInfo

CLOSURE = CheckpointType.ISSUE_CLOSURE
REVIEW = CheckpointType.MR_REVIEW


def spec_with(auto_accept: object) -> AgentSpec:
    return AgentSpec.model_validate(
        {"spec_file": "/s/spec.md", "project_dir": "/s", "target_branch": "main"}
        | ({} if auto_accept is None else {"auto_accept": auto_accept})
    )


@pytest.mark.parametrize(
    ("given", "compact"),
    [
        (None, "HITL"),
        (False, "HITL"),
        (True, "AUTO"),
        ({"default": "approve", "issue_closure": "ask"}, "AUTO except issue_closure"),
        (
            {"mr_review": "approve", "issue_closure": "approve"},
            "HITL except issue_closure,mr_review",
        ),
        ({"default": "ask", "issue_closure": "ask"}, "HITL"),  # the same as the default: dropped
    ],
)
def test_a_spec_takes_a_bool_or_rules_per_type(given: object, compact: str) -> None:
    rules = spec_with(given).auto_accept
    assert rules.compact() == compact
    again = AgentSpec.model_validate_json(spec_with(given).model_dump_json()).auto_accept
    assert again == rules


def test_the_spec_keeps_the_flat_form_a_person_writes() -> None:
    dumped = spec_with({"default": "approve", "issue_closure": "ask"}).model_dump(mode="json")
    assert dumped["auto_accept"] == {"default": "approve", "issue_closure": "ask"}


@pytest.mark.parametrize(
    ("given", "field"),
    [
        ({"default": "approve", "issue_closuer": "ask"}, "issue_closuer"),
        ({"default": "maybe"}, "default"),
        ({"issue_closure": "yes"}, "issue_closure"),
        ("on", "auto_accept"),
    ],
)
def test_a_spec_with_an_unknown_type_or_answer_is_refused_naming_it(
    given: object, field: str
) -> None:
    with pytest.raises(ValidationError, match=field):
        spec_with(given)


def test_for_type_names_the_rule_that_answers() -> None:
    rules = parse_rules("default=approve,issue_closure=ask")
    assert rules.for_type(CLOSURE) == ("ask", "auto-accept: issue_closure=ask")
    assert rules.for_type(REVIEW) == ("approve", "auto-accept: default=approve")
    named = parse_rules("mr_review=approve")
    assert named.for_type(REVIEW) == ("approve", "auto-accept: mr_review=approve")
    assert named.for_type(CLOSURE) == ("ask", "auto-accept: default=ask")


@pytest.mark.parametrize(
    ("text", "current", "expected"),
    [
        ("on", None, "default=approve"),
        ("off", AutoAcceptRules.on(), "default=ask"),
        ("issue_closure=ask", AutoAcceptRules.on(), "default=approve,issue_closure=ask"),
        ("issue_closure=ask", None, "default=ask"),
        ("on,issue_closure=ask", None, "default=approve,issue_closure=ask"),
        (" default=approve , mr_review=ask ", None, "default=approve,mr_review=ask"),
        ("default=ask", parse_rules("on,issue_closure=ask"), "default=ask"),
        ("default=ask", parse_rules("mr_review=approve"), "default=ask,mr_review=approve"),
        ("issue_closure=approve", parse_rules("on,issue_closure=ask"), "default=approve"),
    ],
)
def test_the_cli_text_changes_the_rules_in_force(
    text: str, current: AutoAcceptRules | None, expected: str
) -> None:
    assert parse_rules(text, current).text() == expected


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("issue_closuer=ask", "'issue_closuer' is not a checkpoint type; one of: default, "),
        ("issue_closure=maybe", "the answer is approve or ask, not 'maybe'"),
        ("yes", "'yes' is not on, off or TYPE=approve|ask"),
        ("", "auto-accept takes on, off or TYPE=approve|ask"),
        (" , ", "auto-accept takes on, off or TYPE=approve|ask"),
    ],
)
def test_bad_cli_text_is_one_clear_line(text: str, says: str) -> None:
    with pytest.raises(AutoAcceptRulesError) as raised:
        parse_rules(text)
    assert says in str(raised.value) and "\n" not in str(raised.value)


def test_equal_rules_have_one_form_whatever_the_order() -> None:
    one = parse_rules("on,issue_closure=ask,mr_review=ask")
    other = parse_rules("mr_review=ask,issue_closure=ask", AutoAcceptRules.on())
    assert one == other and one.model_dump_json() == other.model_dump_json()


def test_truthiness_says_whether_anything_is_approved_without_a_person() -> None:
    assert not AutoAcceptRules.off() and AutoAcceptRules.on()
    assert parse_rules("mr_review=approve")
    assert not parse_rules("on,default=ask")


def test_a_workspace_file_written_before_the_rules_loads_unchanged(tmp_path: Path) -> None:
    spec = spec_with(True)
    old = {
        "schema_version": 1,
        "spec": {**spec.model_dump(mode="json"), "auto_accept": True},
        "spec_slug": "spec",
        "feature_branch": "feature/spec",
        "auto_accept": True,
        "auto_accept_serial": 2,
        "auto_accept_mac": "ab" * 32,
    }
    info = WorkspaceInfo.model_validate_json(json.dumps(old))
    assert info.auto_accept == AutoAcceptRules.on() and info.spec.auto_accept == info.auto_accept
    assert info.auto_accept_serial == 2
    off = WorkspaceInfo.model_validate({**old, "auto_accept": False})
    assert off.auto_accept == AutoAcceptRules.off()

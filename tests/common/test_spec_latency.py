"""The spec's ``model_latency_s``: seconds per embedded-model answer, judged by the schema."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.frontend.specs import parse_specs
from common.errors import SpecError
from common.schemas.spec import MAX_MODEL_LATENCY_S, AgentSpec


def spec_json(**fields: Any) -> str:
    return json.dumps(
        {"spec_file": "/s/spec.md", "project_dir": "/s/repo", "target_branch": "main", **fields}
    )


def test_the_default_is_no_latency() -> None:
    spec = AgentSpec.model_validate(
        {"spec_file": "/s/spec.md", "project_dir": "/s/repo", "target_branch": "main"}
    )
    assert spec.model_latency_s == 0.0


@pytest.mark.parametrize("seconds", [0, 0.25, 1.5, MAX_MODEL_LATENCY_S])
def test_a_latency_for_the_embedded_model_is_kept(seconds: float) -> None:
    [spec] = parse_specs(spec_json(model="local", model_latency_s=seconds))
    assert spec.model_latency_s == seconds


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (-0.5, "--specs[0].model_latency_s: input should be greater than or equal to 0"),
        (MAX_MODEL_LATENCY_S + 1, "less than or equal to 300"),
        ("soon", "--specs[0].model_latency_s: input should be a valid number"),
        (None, "--specs[0].model_latency_s: input should be a valid number"),
    ],
)
def test_a_bad_latency_is_one_line(value: object, says: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_specs(spec_json(model="local", model_latency_s=value))
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_a_latency_that_is_not_finite_is_refused(literal: str) -> None:
    text = spec_json(model="local").replace("}", f', "model_latency_s": {literal}}}')
    with pytest.raises(SpecError, match=r"model_latency_s: input should be a finite number"):
        parse_specs(text)


@pytest.mark.parametrize(
    ("model", "named"),
    [(None, "CLAUDE_MODEL (no model set)"), ("claude-sonnet-4-5", "model 'claude-sonnet-4-5'")],
)
def test_a_latency_for_a_real_endpoint_is_refused(model: str | None, named: str) -> None:
    fields: dict[str, Any] = {"model_latency_s": 1.5}
    if model is not None:
        fields["model"] = model
    with pytest.raises(SpecError) as caught:
        parse_specs(spec_json(**fields))
    assert str(caught.value) == (
        f'--specs[0]: model_latency_s is for the embedded model (model "local") only, not {named}'
    )


def test_a_zero_latency_is_allowed_with_a_real_endpoint() -> None:
    """0 is the default: writing it out asks nothing of the endpoint."""
    [spec] = parse_specs(spec_json(model="claude-sonnet-4-5", model_latency_s=0))
    assert spec.model_latency_s == 0.0

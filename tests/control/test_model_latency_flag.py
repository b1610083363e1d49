"""`harness run --model-latency SECONDS`: it wins over the specs; the spec's rules judge it."""

from __future__ import annotations

import json

import pytest

from agent.control.main import main
from agent.daemon import lifecycle
from agent.frontend.specs import parse_specs, with_model_latency
from common.errors import SpecError


def specs_json(*models: str | None, latency: float = 0.0) -> str:
    entries = []
    for index, model in enumerate(models):
        entry: dict[str, object] = {
            "spec_file": f"/s/spec{index}.md",
            "project_dir": "/s/repo",
            "target_branch": "main",
            "model_latency_s": latency,
        }
        if model is not None:
            entry["model"] = model
        entries.append(entry)
    return json.dumps(entries)


def test_the_flag_overrides_every_spec_of_the_batch() -> None:
    specs = parse_specs(specs_json("local", "local", latency=0.5))

    updated = with_model_latency(specs, "1.5")

    assert [spec.model_latency_s for spec in updated] == [1.5, 1.5]
    assert [spec.spec_file for spec in updated] == [spec.spec_file for spec in specs]
    assert [spec.model_latency_s for spec in specs] == [0.5, 0.5]  # the input is not changed


def test_the_flag_can_set_the_latency_back_to_zero() -> None:
    [spec] = with_model_latency(parse_specs(specs_json("local", latency=2)), "0")
    assert spec.model_latency_s == 0.0


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("soon", "--model-latency 'soon' is not a number of seconds"),
        ("-1", "--model-latency -1 for --specs[0]: input should be greater than or equal to 0"),
        ("nan", "--model-latency nan for --specs[0]: input should be a finite number"),
        ("inf", "--model-latency inf for --specs[0]: input should be a finite number"),
        ("301", "--model-latency 301 for --specs[0]: input should be less than or equal to 300"),
    ],
)
def test_a_bad_flag_value_is_one_line(text: str, says: str) -> None:
    with pytest.raises(SpecError) as caught:
        with_model_latency(parse_specs(specs_json("local")), text)
    assert str(caught.value) == says


def test_the_flag_names_the_spec_that_is_not_on_the_embedded_model() -> None:
    specs = parse_specs(specs_json("local", "claude-sonnet-4-5"))
    with pytest.raises(SpecError) as caught:
        with_model_latency(specs, "1.5")
    assert str(caught.value) == (
        "--model-latency 1.5 for --specs[1]: model_latency_s is for the embedded model "
        "(model \"local\") only, not model 'claude-sonnet-4-5'"
    )


def test_harness_run_refuses_a_bad_latency_in_one_line_before_starting_anything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["run", "--specs", specs_json("local"), "--model-latency", "-2"])

    captured = capsys.readouterr()
    assert code == 1
    assert captured.err == (
        "error: --model-latency -2 for --specs[0]: input should be greater than or equal to 0\n"
    )
    assert captured.out == ""
    assert lifecycle.daemon_running() is None  # this test's HARNESS_HOME has no daemon

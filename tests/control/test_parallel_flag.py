"""``"parallel": N`` and ``harness run --parallel N``: 1..8, only in the closed sandbox."""

from __future__ import annotations

import json

import pytest

from agent.control.main import main
from agent.daemon import lifecycle
from agent.frontend.specs import parse_specs, with_parallel
from common.errors import SpecError
from common.schemas.spec import MAX_PARALLEL


def specs_json(*extra: dict[str, object]) -> str:
    base = {"spec_file": "/s/spec.md", "project_dir": "/s/repo", "target_branch": "main"}
    return json.dumps([{**base, **fields} for fields in extra])


def test_one_issue_at_a_time_is_the_default() -> None:
    [spec] = parse_specs(specs_json({}))
    assert spec.parallel == 1


def test_the_spec_field_is_read() -> None:
    [spec] = parse_specs(specs_json({"parallel": 3}))
    assert spec.parallel == 3


def test_the_flag_overrides_every_spec_of_the_batch() -> None:
    specs = parse_specs(specs_json({"parallel": 2}, {}))

    updated = with_parallel(specs, "3")

    assert [spec.parallel for spec in updated] == [3, 3]
    assert [spec.parallel for spec in specs] == [2, 1]  # the input is not changed


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"parallel": 0}, "--specs[0].parallel: input should be greater than or equal to 1"),
        (
            {"parallel": MAX_PARALLEL + 1},
            f"--specs[0].parallel: input should be less than or equal to {MAX_PARALLEL}",
        ),
        ({"parallel": "3"}, "--specs[0].parallel: input should be a valid integer"),
        ({"parallel": 2.5}, "--specs[0].parallel: input should be a valid integer"),
        ({"parallel": True}, "--specs[0].parallel: input should be a valid integer"),
        (
            {"parallel": 2, "sandbox": False},
            "--specs[0]: parallel 2 needs the sandbox (sandbox is false)",
        ),
        (
            {"parallel": 4, "sandbox_network": True},
            "--specs[0]: parallel 4 needs the sandbox without the host network "
            "(sandbox_network is true)",
        ),
    ],
)
def test_a_bad_spec_value_is_one_line(fields: dict[str, object], says: str) -> None:
    with pytest.raises(SpecError) as caught:
        parse_specs(specs_json(fields))
    assert str(caught.value) == says


def test_one_at_a_time_needs_no_sandbox() -> None:
    [spec] = parse_specs(specs_json({"parallel": 1, "sandbox": False, "sandbox_network": True}))
    assert spec.parallel == 1


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("many", "--parallel 'many' is not a whole number of issues"),
        ("2.5", "--parallel '2.5' is not a whole number of issues"),
        ("0", "--parallel 0 for --specs[0]: input should be greater than or equal to 1"),
        ("9", "--parallel 9 for --specs[0]: input should be less than or equal to 8"),
    ],
)
def test_a_bad_flag_value_is_one_line(text: str, says: str) -> None:
    with pytest.raises(SpecError) as caught:
        with_parallel(parse_specs(specs_json({})), text)
    assert str(caught.value) == says


def test_the_flag_names_the_spec_without_the_closed_sandbox() -> None:
    specs = parse_specs(specs_json({}, {"sandbox": False}))
    with pytest.raises(SpecError) as caught:
        with_parallel(specs, "2")
    assert (
        str(caught.value)
        == "--parallel 2 for --specs[1]: parallel 2 needs the sandbox (sandbox is false)"
    )


def test_harness_run_refuses_parallel_without_the_sandbox_in_one_line_before_starting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["run", "--specs", specs_json({"sandbox": False}), "--parallel", "3"])

    captured = capsys.readouterr()
    assert code == 1
    assert captured.err == (
        "error: --parallel 3 for --specs[0]: parallel 3 needs the sandbox (sandbox is false)\n"
    )
    assert captured.out == ""
    assert lifecycle.daemon_running() is None  # this test's HARNESS_HOME has no daemon

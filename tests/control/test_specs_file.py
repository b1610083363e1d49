"""``--specs @FILE`` reads the JSON from a file; a missing file is one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.frontend.specs import parse_specs
from common.errors import SpecError


def test_specs_are_read_from_a_file(tmp_path: Path) -> None:
    specs = tmp_path / "specs.json"
    entry = {"spec_file": "/tmp/s.md", "project_dir": "/tmp", "target_branch": "main"}
    specs.write_text(json.dumps([entry]))

    [spec] = parse_specs(f"@{specs}")

    assert (spec.spec_file, spec.target_branch) == (Path("/tmp/s.md"), "main")


def test_a_missing_specs_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"^--specs file .*absent\.json does not exist$"):
        parse_specs(f"@{tmp_path / 'absent.json'}")


def test_a_specs_file_is_checked_like_inline_json(tmp_path: Path) -> None:
    specs = tmp_path / "specs.json"
    specs.write_text("[{")

    with pytest.raises(SpecError, match=r"^--specs is not valid JSON"):
        parse_specs(f"@{specs}")


@pytest.mark.parametrize("given", ["/tmp/specs.json", "specs.json", "~/batch/specs.json"])
def test_a_path_given_without_at_says_how_to_name_a_file(given: str) -> None:
    with pytest.raises(
        SpecError,
        match=rf"^--specs is not valid JSON: .*; to read the specs "
        rf"from a file, write --specs @{given}$",
    ):
        parse_specs(given)


def test_broken_json_gets_no_file_hint() -> None:
    with pytest.raises(SpecError) as raised:
        parse_specs('[{"spec_file": "/tmp/s.md",')
    assert "@" not in str(raised.value)

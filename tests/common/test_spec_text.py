"""A spec file that is not text is refused with one line before anything starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from common.errors import SpecError
from common.schemas.spec import AgentSpec
from common.workspace.setup import validate_spec
from common.workspace.spec_text import spec_text_problem

REPO_ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (PNG, "is not UTF-8 text (byte 0x89 at offset 0)"),
        (b"# Spec\n\0\0binary", "is not a text file (byte 0x00 at offset 7)"),
        ("# Spécification\n".encode("latin-1"), "is not UTF-8 text (byte 0xe9 at offset 4)"),
    ],
)
def test_a_file_that_is_not_utf8_text_is_no_spec(content: bytes, says: str, tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    spec.write_bytes(content)

    assert spec_text_problem(spec) == f"spec_file {spec} {says}; a spec is Markdown or plain text"


def test_markdown_in_utf8_is_a_spec(tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    spec.write_text("# Spécification — ✓\n", encoding="utf-8")
    assert spec_text_problem(spec) is None


def test_validate_spec_refuses_it_before_the_project_is_looked_at(tmp_path: Path) -> None:
    spec_file = tmp_path / "spec.png"
    spec_file.write_bytes(PNG)
    spec = AgentSpec(spec_file=spec_file, project_dir=tmp_path / "none", target_branch="main")

    with pytest.raises(SpecError, match=r"is not UTF-8 text"):
        validate_spec(spec)


def test_harness_run_refuses_a_binary_spec_in_one_line_and_starts_nothing(
    tmp_path: Path, isolated_home: Path
) -> None:
    spec_file = tmp_path / "spec.png"
    spec_file.write_bytes(PNG)
    specs = f'[{{"spec_file": "{spec_file}", "project_dir": "{tmp_path}", "target_branch": "m"}}]'

    done = subprocess.run(
        [sys.executable, "-m", "agent.control", "run", "--specs", specs],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 1
    assert done.stderr == (
        f"error: spec_file {spec_file} is not UTF-8 text (byte 0x89 at offset 0); "
        "a spec is Markdown or plain text\n"
    )
    assert not (isolated_home / "daemon.sock").exists(), "nothing started"

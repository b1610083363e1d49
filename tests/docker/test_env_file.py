"""``scripts/load-env.sh``: .env is read as KEY=VALUE lines, never run, and never overrides.

The README says ``cp .env.example .env``; the template's empty ``ANTHROPIC_API_KEY=``
once erased a key exported in the shell, and a line ``X=$(cmd)`` ran ``cmd``. Each case
runs the real loader in bash, as start.sh and docker-entrypoint.sh source it, and reads
the environment it leaves (``env -0``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.docker.engine import REPO_ROOT

LOADER = REPO_ROOT / "scripts" / "load-env.sh"
KEY = "sk-ant-exported-in-the-shell"


def load(env_file: Path, environment: dict[str, str]) -> tuple[dict[str, str], str]:
    """The environment after ``load_env_file env_file`` in a clean bash, and its stderr."""
    done = subprocess.run(
        ["bash", "-c", '. "$0"; load_env_file "$1"; env -0', str(LOADER), str(env_file)],
        env={"PATH": os.environ["PATH"], **environment},
        capture_output=True,
        timeout=30,
        check=True,
    )
    pairs = (entry.split("=", 1) for entry in done.stdout.decode().split("\0") if entry)
    return dict(pairs), done.stderr.decode()


def test_the_template_keeps_an_exported_key(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text((REPO_ROOT / ".env.example").read_text())

    seen, errors = load(env_file, {"ANTHROPIC_API_KEY": KEY})

    assert seen["ANTHROPIC_API_KEY"] == KEY
    assert "CLAUDE_CODE_OAUTH_TOKEN" not in seen, "an empty value sets nothing"
    assert "GITLAB_PERSONAL_ACCESS_TOKEN" not in seen
    assert errors == ""


def test_a_set_variable_wins_and_an_unset_one_is_filled(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text("ANTHROPIC_BASE_URL=http://from-file\nCLAUDE_MODEL=from-file\n")

    seen, _ = load(env_file, {"ANTHROPIC_BASE_URL": "http://from-shell"})

    assert seen["ANTHROPIC_BASE_URL"] == "http://from-shell"
    assert seen["CLAUDE_MODEL"] == "from-file"


@pytest.mark.parametrize(
    ("line", "value"),
    [
        ("A=plain", "plain"),
        ("A = spaced  ", "spaced"),
        ('A="double # not a comment"', "double # not a comment"),
        ("A='single $HOME'", "single $HOME"),
        ("export A=exported", "exported"),
        ("A=value # trailing comment", "value"),
        ("A=a#b", "a#b"),
        ("A=$(touch {marker})", "$(touch {marker})"),
        ("A=`touch {marker}`", "`touch {marker}`"),
        ("A=x; touch {marker}", "x; touch {marker}"),
        ("A=crlf\r", "crlf"),
    ],
)
def test_values_are_taken_literally_and_nothing_runs(tmp_path: Path, line: str, value: str) -> None:
    marker = tmp_path / "ran"
    env_file = tmp_path / ".env"
    env_file.write_text(f"# a comment\n\n{line.format(marker=marker)}\n")

    seen, _ = load(env_file, {})

    assert seen["A"] == value.format(marker=marker)
    assert not marker.exists(), "nothing in .env may run"


def test_a_line_that_is_not_key_value_is_one_warning_without_its_content(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    env_file = tmp_path / ".env"
    env_file.write_text(f"touch {marker} sk-secret\nB=kept\n")

    seen, errors = load(env_file, {})

    assert not marker.exists()
    assert seen["B"] == "kept"
    assert errors == f"warning: {env_file} line 1 is not KEY=VALUE; skipped\n"


def test_dot_env_is_git_ignored() -> None:
    done = subprocess.run(
        ["git", "-C", str(REPO_ROOT), "check-ignore", "-q", ".env"], check=False, timeout=30
    )
    assert done.returncode == 0, "a filled-in .env must be one `git add -A` from nothing"

"""``.env`` as ``harness`` reads it is ``.env`` as ``start.sh`` reads it: the same pairs from
the same lines (the shell loader runs beside the Python one on each case), the same
warnings, and never over the environment."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from common.env_file import env_file, load, parse

REPO_ROOT = Path(__file__).resolve().parents[2]
LOADER = REPO_ROOT / "scripts" / "load-env.sh"

CASES = [
    "A=plain",
    "A = spaced  ",
    'A="double # not a comment"',
    "A='single $HOME'",
    "export A=exported",
    "export   A='exported quoted'",
    "A=value # trailing comment",
    "A=a#b",
    "A=#only a comment",
    "A=$(touch /tmp/never)",
    "A=`touch /tmp/never`",
    "A=x; touch /tmp/never",
    "A=crlf\r",
    '  A="unterminated',
    "A=",
    'A=""',
    "A=first\nA=second",
    "A=\nA=filled later",
    "# comment\n\n   \nB=b",
    "not a pair sk-secret\nB=kept",
    "1A=bad name\nB=kept",
    "A=tab\tinside",
    "A=last line without newline",
]


def shell_loaded(text: str, tmp_path: Path) -> tuple[dict[str, str], str]:
    """What ``load_env_file`` exports (beyond a bare environment) and its stderr."""
    path = tmp_path / ".env"
    path.write_bytes(text.encode())
    bare = {"PATH": os.environ["PATH"]}
    done = subprocess.run(
        ["bash", "-c", '. "$0"; load_env_file "$1"; env -0', str(LOADER), str(path)],
        env=bare,
        capture_output=True,
        timeout=30,
        check=True,
    )
    pairs = (entry.split("=", 1) for entry in done.stdout.decode().split("\0") if entry)
    seen = {
        key: value for key, value in pairs if key not in bare and key not in ("PWD", "SHLVL", "_")
    }
    return seen, done.stderr.decode()


@pytest.mark.parametrize("text", CASES)
def test_the_python_reader_reads_as_the_shell_loader(text: str, tmp_path: Path) -> None:
    expected, warnings = shell_loaded(text, tmp_path)
    path = tmp_path / ".env"

    environ: dict[str, str] = {}
    printed = load(path, environ)

    assert environ == expected
    assert "".join(f"{line}\n" for line in printed) == warnings


def test_a_set_variable_wins_and_an_unset_one_is_filled(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    path.write_text("ANTHROPIC_API_KEY=\nANTHROPIC_BASE_URL=http://file\nCLAUDE_MODEL=m\n")
    environ = {"ANTHROPIC_BASE_URL": "http://shell", "ANTHROPIC_API_KEY": "sk-shell"}

    assert load(path, environ) == []

    assert environ == {
        "ANTHROPIC_BASE_URL": "http://shell",
        "ANTHROPIC_API_KEY": "sk-shell",
        "CLAUDE_MODEL": "m",
    }


def test_a_warning_names_the_line_never_its_content() -> None:
    _, warnings = parse("sk-ant-secret without equals\n", "/x/.env")
    assert warnings == ["warning: /x/.env line 1 is not KEY=VALUE; skipped"]


def test_which_file_is_read(tmp_path: Path) -> None:
    assert env_file({}, tmp_path) == tmp_path / ".env"
    assert env_file({}, None) is None
    assert env_file({"HARNESS_ENV_FILE": "other.env"}, tmp_path) == tmp_path / "other.env"
    assert env_file({"HARNESS_ENV_FILE": "/abs/x.env"}, tmp_path) == Path("/abs/x.env")
    assert env_file({"HARNESS_ENV_FILE": "rel.env"}, None) == Path("rel.env")
    assert load(tmp_path / "missing.env", {}) == []

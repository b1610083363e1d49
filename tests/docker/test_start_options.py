"""``./start.sh``'s options, checked before anything is built, started or installed."""

from __future__ import annotations

import subprocess

from tests.docker.engine import REPO_ROOT

START = REPO_ROOT / "start.sh"


def start(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(START), *args], capture_output=True, text=True, timeout=30, check=False
    )


def test_help_prints_the_leading_comment_and_nothing_else() -> None:
    done = start("--help")
    comment = []
    for line in START.read_text().splitlines()[1:]:
        if not line.startswith("#"):
            break
        comment.append(line.removeprefix("#").removeprefix(" "))
    assert done.returncode == 0
    assert done.stdout.splitlines() == comment
    assert "set -euo pipefail" not in done.stdout
    assert "--connect [NAME]" in done.stdout


def test_wait_without_demo_or_specs_is_refused_in_both_modes() -> None:
    for mode in ([], ["--native"]):
        done = start(*mode, "--wait")
        assert (done.returncode, done.stderr) == (2, "error: --wait needs --demo or --specs\n")


def test_an_unknown_option_is_one_line_and_status_2() -> None:
    done = start("--frobnicate")
    assert done.returncode == 2
    assert done.stderr == "error: unknown option --frobnicate (see ./start.sh --help)\n"


def test_fresh_without_specs_or_with_the_demo_is_refused_in_both_modes() -> None:
    message = "error: --fresh needs --specs (it runs those specs again)\n"
    for mode in ([], ["--native"]):
        for others in ([], ["--demo", "--specs", "[]"]):
            done = start(*mode, *others, "--fresh")
            assert (done.returncode, done.stderr) == (2, message)

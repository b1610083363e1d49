"""``./start.sh``'s options, checked before anything is built, started or installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.docker.engine import REPO_ROOT

START = REPO_ROOT / "start.sh"


def start(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(START), *args],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, **(env or {})},
    )


def without_docker(tmp_path: Path) -> dict[str, str]:
    """A ``PATH`` with what start.sh needs to read its options, and no ``docker``."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "dirname", "sed"):
        found = shutil.which(name)
        assert found is not None, name
        (tools / name).symlink_to(found)
    return {"PATH": str(tools)}


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
    for mode in ([], ["--native"], ["--docker"]):
        done = start(*mode, "--wait")
        assert (done.returncode, done.stderr) == (2, "error: --wait needs --demo or --specs\n")


def test_an_unknown_option_is_one_line_and_status_2() -> None:
    done = start("--frobnicate")
    assert done.returncode == 2
    assert done.stderr == "error: unknown option --frobnicate (see ./start.sh --help)\n"


def test_fresh_without_specs_or_with_the_demo_is_refused_in_both_modes() -> None:
    message = "error: --fresh needs --specs (it runs those specs again)\n"
    for mode in ([], ["--native"], ["--docker"]):
        for others in ([], ["--demo", "--specs", "[]"]):
            done = start(*mode, *others, "--fresh")
            assert (done.returncode, done.stderr) == (2, message)


def test_without_docker_it_runs_natively_by_default(tmp_path: Path) -> None:
    """Where Docker is absent ``./start.sh`` goes native (its first step, the venv, needs a
    Python 3.11: a missing one shows the native path was taken, before any install)."""
    env = {**without_docker(tmp_path), "PYTHON": str(tmp_path / "no-python")}

    done = start("--demo", "--auto-accept", "--wait", env=env)

    assert done.returncode == 1
    assert done.stderr.startswith("error: Python 3.11 or newer is needed"), done.stderr
    assert "Docker" not in done.stderr


def test_docker_is_asked_for_by_name_and_said_absent_in_one_line(tmp_path: Path) -> None:
    env = without_docker(tmp_path)
    for args in (["--docker", "--demo"], ["--build"], ["--connect"]):
        done = start(*args, env=env)
        assert (done.returncode, done.stderr) == (
            1,
            "error: Docker is not available here; run ./start.sh without --docker (natively)\n",
        ), args


def test_native_and_docker_together_are_refused() -> None:
    done = start("--native", "--docker", "--demo")
    assert done.returncode == 2
    assert done.stderr == (
        "error: --native runs on this machine, --docker (--build, --connect) in a container: "
        "choose one\n"
    )

"""``pip install .`` into a fresh venv outside the checkout, then the demo from there.

Issue 20's acceptance: the harness is a package that installs, its prompts, demo and eval
cases package data. Nothing of the checkout is on the installed harness's path: the venv
is new, the working folder and ``HARNESS_HOME`` are the test's own (``/tmp``, marked with
a nonce), ``PYTHONPATH`` is unset.

Why a copy of the sources rather than the checkout itself: setuptools builds in the
source folder (``build/``, ``*.egg-info``), so an install from the checkout writes there,
and a ``build/lib`` left by an earlier build would be packed into the wheel with files
the checkout no longer has. The copy is what a clone holds, without the checkout's venv,
caches and git folder.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.harness_code import CODE_ROOT
from tests.procfs import cmdline_of

pytestmark = pytest.mark.slow

JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache", ".pytest_cache")
"""Caches, at any depth."""
NOT_SOURCES = {".git", ".venv", "build", ".claude-agent", ".data", ".env", "tests", "benchmarks"}
"""What the checkout's top holds that ``pip install`` does not read, or that is no source."""


def not_sources(folder: str, names: list[str]) -> set[str]:
    """For :func:`shutil.copytree`: caches anywhere, the checkout's own places at its top
    (the demo project has a ``tests`` folder of its own)."""
    skipped = set(JUNK(folder, names))
    if Path(folder) == CODE_ROOT:
        skipped |= {n for n in names if n in NOT_SOURCES or n.endswith(".egg-info")}
    return skipped


OURS = ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "HARNESS_HOME", "HARNESS_ENV_CACHE")
"""Variables that would lead the installed harness back to the checkout or its places."""


def asset_files(root: Path) -> set[str]:
    """The files under ``root``, relative, without Python's byte-code caches."""
    return {
        str(path.relative_to(root))
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }


@pytest.fixture
def scratch() -> Iterator[Path]:
    """A folder of the test's own outside the checkout (short: a daemon socket lives in it)."""
    folder = Path(tempfile.mkdtemp(prefix=f"hin-{secrets.token_hex(4)}-", dir="/tmp"))
    assert not folder.is_relative_to(CODE_ROOT)
    yield folder
    for pid in processes_of(folder):  # an agent a failed run left behind (the daemon is stopped)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)


def processes_of(folder: Path) -> list[int]:
    """This test's own processes: those whose command line names its folder (the nonce)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            with contextlib.suppress(OSError):
                if any(str(folder) in part for part in cmdline_of(int(entry.name))):
                    found.append(int(entry.name))
    return found


def run(
    argv: list[str], *, cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, (
        f"{argv[:3]} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done


def test_pip_install_then_the_demo_runs_from_the_install(scratch: Path) -> None:
    started = time.monotonic()
    sources, venv, home, cwd = (scratch / name for name in ("src", "venv", "home", "cwd"))
    shutil.copytree(CODE_ROOT, sources, ignore=not_sources, symlinks=True)
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in OURS and not k.startswith("ANTHROPIC")}

    run([sys.executable, "-m", "venv", str(venv)], cwd=cwd, env=env, timeout=120)
    python = venv / "bin" / "python"
    # Non-editable, with build isolation: a new venv's setuptools is older than the build
    # needs; the pip cache (and the index, where the cache lacks a file) serves both.
    run(
        [str(python), "-m", "pip", "install", "--quiet", str(sources)],
        cwd=cwd,
        env=env,
        timeout=600,
    )
    installed = time.monotonic()

    where = run(
        [str(python), "-c", "import agent.assets as a; print(a.asset_path())"],
        cwd=cwd,
        env=env,
        timeout=60,
    )
    assets = Path(where.stdout.strip())
    assert assets.is_relative_to(venv), f"the harness was imported from {assets}"
    assert asset_files(assets) == asset_files(CODE_ROOT / "agent" / "assets"), "data lost"

    env["HARNESS_HOME"] = str(home)
    harness = str(venv / "bin" / "harness")
    try:
        done = run(
            [harness, "demo", "--dir", str(scratch / "demo"), "--auto-accept", "--wait"],
            cwd=cwd,
            env=env,
            timeout=420,
        )
    finally:
        subprocess.run(
            [harness, "daemon", "stop"], cwd=cwd, env=env, capture_output=True, timeout=60
        )
    finished = time.monotonic()
    print(
        f"install {installed - started:.1f} s, demo {finished - installed:.1f} s, "
        f"in all {finished - started:.1f} s"
    )

    # An eval case from the installed suite: its files are package data too, and its agent
    # (``python -m agent.process``, no daemon) imports the harness from the install alone.
    evaluated = run(
        [harness, "eval", "--embedded-only", "--case", "py-fizzbuzz", "--work", "work"],
        cwd=cwd,
        env=env,
        timeout=300,
    )
    finished_eval = time.monotonic()
    print(f"eval of one case {finished_eval - finished:.1f} s")
    assert evaluated.stdout.startswith("pass rate 1/1 (100%)"), evaluated.stdout

    assert "agent_1: done\n" in done.stdout, done.stdout
    assert "issues: 3 of 3 closed" in done.stdout, done.stdout
    assert re.search(r"^tests on the branch: \d+ passed in", done.stdout, re.M), done.stdout
    logs = list((scratch / "demo").rglob("logs/agent_1-*.log"))
    assert len(logs) == 1, logs
    deadline = time.monotonic() + 15
    while processes_of(scratch) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert processes_of(scratch) == [], "the daemon and the agent are gone"
    sandbox = next(
        line for line in logs[0].read_text().splitlines() if "sandbox: bubblewrap" in line
    )
    assert str(venv) in sandbox, "the sessions ran in the install's own bubblewrap"

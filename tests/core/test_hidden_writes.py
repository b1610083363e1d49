"""What a session writes where git does not look is named, and the gate never runs a
bytecode file in place of the reviewed source.

Real repositories, real files, a real pytest run by the harness's gate.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
import time
from importlib._bootstrap_external import (  # type: ignore[attr-defined]
    _code_to_timestamp_pyc,
)
from pathlib import Path

import pytest

from agent.core.gates import gates
from agent.core.git import commits, hidden_writes
from agent.core.stages import gated
from agent.sandbox.binary import find_bwrap, probe
from tests.core.runs import make_run, sh_git
from tests.sandbox.test_inside import Box, box  # noqa: F401 (the fixture)

BROKEN_SUITE = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": (
        "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
        "def test_add_again():\n    assert add(2, 2) == 4\n"
    ),
}
HIDDEN_CONFTEST = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    (project / ".gitignore").write_text(".venv/\n__pycache__/\nbuild/\n")
    (project / "build").mkdir()
    (project / "build" / "old.txt").write_text("before the session\n")
    sh_git(project, "add", ".gitignore")
    sh_git(project, "commit", "-q", "-m", "start")
    return project


def _session_start() -> int:
    """The session starts well after the setup's writes (inode times are coarse)."""
    time.sleep(2 * hidden_writes.COARSE_CLOCK_NS / 1e9)
    return time.time_ns()


def _write(project: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_self_ignoring_conftest_fools_the_gate_and_is_named(tmp_path: Path) -> None:
    """The attack as measured: the gate says passed; the harness now names both files."""
    project = _project(tmp_path)
    since = _session_start()
    _write(project, BROKEN_SUITE)
    _write(project, {"tests/.gitignore": "conftest.py\n.gitignore\n"})
    _write(project, {"tests/conftest.py": HIDDEN_CONFTEST})
    run = gates.run_tests(project, f"{sys.executable} -m pytest -q -p no:cacheprovider")

    result = asyncio.run(run)
    changes = commits.session_changes(project, {"tests/conftest.py"}, set())

    assert result.passed, result.output_tail  # the gate alone is fooled ...
    assert "tests/conftest.py" not in changes.files  # ... and the commit never shows it
    assert hidden_writes.written_since(project, since) == [
        b"tests/.gitignore",
        b"tests/conftest.py",
    ]


def test_files_written_before_the_session_and_gate_caches_are_not_named(tmp_path: Path) -> None:
    project = _project(tmp_path)
    pycache = project / "src" / "__pycache__"
    pycache.mkdir(parents=True)
    since = _session_start()
    (pycache / "m.cpython-311.pyc").write_bytes(b"\0" * 16)
    (project / ".pytest_cache").mkdir()
    (project / ".pytest_cache" / "x").write_text("x\n")
    (project / "build" / "new.txt").write_text("during the session\n")

    assert hidden_writes.written_since(project, since) == [b"build/new.txt"]


def test_a_time_set_back_does_not_hide_a_write(tmp_path: Path) -> None:
    """``touch -d 2001-01-01`` moves mtime; ctime, which the harness reads, stays now."""
    project = _project(tmp_path)
    since = _session_start()
    site = project / ".venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    planted = site / "sitecustomize.py"
    planted.write_text("import os\n")
    os.utime(planted, (978307200, 978307200))

    assert hidden_writes.written_since(project, since) == [
        b".venv/lib/site-packages/sitecustomize.py"
    ]


def test_a_link_is_named_never_followed_and_a_fifo_never_opened(tmp_path: Path) -> None:
    project = _project(tmp_path)
    since = _session_start()
    (project / "build" / "key").symlink_to("/root/.ssh/id_rsa")
    os.mkfifo(project / "build" / "pipe")

    assert hidden_writes.written_since(project, since) == [b"build/key"]


def test_the_harness_workspace_is_not_the_models(tmp_path: Path) -> None:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    since = _session_start()
    run.log("a line the harness writes into its workspace during the session")
    (run.files.root / "state.json").write_text("{}\n")

    assert hidden_writes.written_since(project, since) == []


def test_the_session_is_told_and_a_long_list_is_cut(tmp_path: Path) -> None:
    project = _project(tmp_path)
    since = _session_start()
    _write(project, {f"build/f{n:02}.py": "x = 1\n" for n in range(gated.HIDDEN_SHOWN + 3)})
    _write(project, {"build/\x1b[2Jevil.py": "x = 1\n"})

    kept, runnable = gated._hidden_writes(project, since, ())

    assert len(kept) == gated.HIDDEN_SHOWN + 1
    assert kept[0] == commits.KeptOut("build/\\x1b[2Jevil.py", hidden_writes.REASON)
    assert kept[-1].path == "… and 4 more file(s)"
    assert gated._hidden_writes(project, None, ()) == ([], [])
    assert "git ignores" in commits.kept_out_line(kept)
    # Python files the gates import: every one waits for a person (the list is cut).
    assert runnable[0] == f"build/\\x1b[2Jevil.py: {hidden_writes.RUNS_REASON}"
    assert runnable[-1] == "… and 4 more file(s) the gates run"


def test_the_gate_never_runs_a_planted_bytecode_file(tmp_path: Path) -> None:
    """A pyc with the reviewed source's size and time in its header ran in its place."""
    project = tmp_path / "project"
    project.mkdir()
    source = project / "m.py"
    source.write_text('def f():\n    return "real"\n')
    stat = source.stat()
    forged = compile('def f():\n    return "FORGED"\n', str(source), "exec")
    pyc = Path(importlib.util.cache_from_source(str(source)))
    pyc.parent.mkdir()
    pyc.write_bytes(_code_to_timestamp_pyc(forged, int(stat.st_mtime), stat.st_size))
    command = f"{sys.executable} -c 'import m; print(m.f())'"
    unguarded = subprocess.run(
        command, shell=True, cwd=project, capture_output=True, text=True, check=True
    ).stdout.strip()
    result = asyncio.run(gates.run_tests(project, command, dict(os.environ)))

    assert unguarded == "FORGED"  # what the gate ran before
    assert result.output_tail == "real"
    assert pyc.read_bytes()[16:] != b""  # the planted file is still there, unread


PLANT_PYC = """
import importlib.util, os, sys
from importlib._bootstrap_external import _code_to_timestamp_pyc
stat = os.stat("m.py")
code = compile('def f():\\n    return "FORGED"\\n', "m.py", "exec")
path = importlib.util.cache_from_source("m.py")
os.makedirs(os.path.dirname(path), exist_ok=True)
open(path, "wb").write(_code_to_timestamp_pyc(code, int(stat.st_mtime), stat.st_size))
"""


@pytest.mark.skipif(probe(find_bwrap()) is not None, reason="bubblewrap cannot run here")
async def test_the_sandboxed_gate_never_runs_a_planted_bytecode_file(
    box: Box,  # noqa: F811 (the fixture)
) -> None:
    (box.project / "m.py").write_text('def f():\n    return "real"\n')
    (box.project / "plant.py").write_text(PLANT_PYC)
    planted = await box.sh("/usr/bin/python3 plant.py")
    assert planted.returncode == 0, planted.stderr
    command = "/usr/bin/python3 -c 'import m; print(m.f())'"
    assert (await box.sh(command)).stdout.strip() == "FORGED"  # what the gate ran before

    result = await gates.run_tests(box.project, command, dict(os.environ), wrap=box.sandbox.wrap)

    assert result.output_tail == "real", result.output_tail


USER_SITE_PLANT = """
import site, os
os.makedirs(site.getusersitepackages(), exist_ok=True)
with open(os.path.join(site.getusersitepackages(), "usercustomize.py"), "w") as out:
    out.write("print('PLANTED-IN-HOME')\\n")
"""


@pytest.mark.skipif(probe(find_bwrap()) is not None, reason="bubblewrap cannot run here")
async def test_the_gate_never_sees_what_a_session_left_in_its_home(
    box: Box,  # noqa: F811 (the fixture)
) -> None:
    """The sessions' scratch home lasts the agent's life and is in no commit: a
    ``usercustomize.py`` (or ``~/.npmrc`` with ``node-options``) there ran at every gate."""
    (box.project / "plant.py").write_text(USER_SITE_PLANT)
    planted = await box.sh("/usr/bin/python3 plant.py && /usr/bin/python3 -c 'print(1)'")
    assert planted.stdout.split() == ["PLANTED-IN-HOME", "1"], planted.stderr

    result = await gates.run_tests(
        box.project, "/usr/bin/python3 -c 'print(1)'", dict(os.environ), wrap=box.sandbox.wrap
    )

    assert result.output_tail == "1"


BASHRC_PLANT = """
import os
with open(os.path.join(os.environ["HOME"], ".bashrc"), "w") as out:
    out.write("pytest() { echo forged: 42 passed; }\\n")
"""


@pytest.mark.skipif(probe(find_bwrap()) is not None, reason="bubblewrap cannot run here")
async def test_the_next_session_never_finds_what_one_left_in_its_home(
    box: Box,  # noqa: F811 (the fixture)
) -> None:
    """One session's ``~/.bashrc`` (which the CLI's shell snapshot sources), ``~/.claude``
    and ``~/.local`` were the next session's: each session now starts with an empty home."""
    (box.project / "plant.py").write_text(BASHRC_PLANT)
    first = await box.sh("/usr/bin/python3 plant.py && ls -A $HOME")
    assert first.stdout.split() == [".bashrc"], first.stderr

    second = await box.sh('ls -A "$HOME"; echo "home=$HOME"')

    assert second.stdout.split() == [f"home={box.sandbox.plan.scratch_home}"]

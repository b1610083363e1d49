"""A project without a venv, on a machine whose only Python is a pyenv version under a home.

The stand-in home holds a pyenv root: a shim (the real shape: a bash script that
runs ``pyenv``, which the sandbox never shows), the user's global ``version`` file,
and ``versions/X`` linked to this machine's real interpreter folder. ``PATH`` has
nothing else: no ``python`` at all. Detection must name the real interpreter by its
absolute path, the layout must show its version folder (never the home), and the
tests must run inside the sandbox.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent.core.gates.gates import run_tests
from agent.sandbox import layout
from agent.sandbox.binary import find_bwrap, probe
from agent.sandbox.launcher import session_sandbox
from agent.sandbox.protected import ProtectedPlaces
from common import host_python
from common.project_env import detect

BWRAP = find_bwrap()
REAL = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
"""This machine's interpreter (the harness venv's base: it has pytest)."""
VERSION_FOLDER = REAL.parent.parent
SHIM = '#!/usr/bin/env bash\nset -e\nexec "{root}/libexec/pyenv" exec "${{0##*/}}" "$@"\n'


@dataclass
class Machine:
    home: Path
    root: Path
    """The stand-in pyenv root, in the home."""
    project: Path
    environ: dict[str, str]


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    home = tmp_path / "home"
    root = home / ".pyenv"
    (root / "shims").mkdir(parents=True)
    (root / "versions").mkdir()
    (root / "versions" / "3.x").symlink_to(VERSION_FOLDER)
    shim = root / "shims" / "python3"
    shim.write_text(SHIM.format(root=root))
    shim.chmod(0o755)
    (root / "version").write_text("3.x\n")
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    return Machine(home, root, project, {"PATH": f"{root / 'shims'}:{tmp_path / 'empty'}"})


def test_a_pyenv_shim_resolves_to_the_version_of_the_users_global_file(machine: Machine) -> None:
    search = host_python.find(machine.environ, machine.project)

    assert search.found is not None
    assert search.found.executable == REAL.parent / "python3" or search.found.executable == REAL
    assert search.found.folder == VERSION_FOLDER
    assert str(machine.root / "version") in search.found.found_as


def test_pyenv_version_comes_first_and_system_means_the_next_path_entry(
    machine: Machine, tmp_path: Path
) -> None:
    plain = tmp_path / "plain" / "bin"
    plain.mkdir(parents=True)
    (plain / "python3").symlink_to(REAL)
    environ = {"PATH": f"{machine.root / 'shims'}:{plain}", "PYENV_VERSION": "system"}

    search = host_python.find(environ, machine.project)

    assert search.found is not None and search.found.folder == REAL.parent.parent
    assert str(plain) in search.found.found_as


def test_a_project_s_python_version_file_and_path_entries_are_never_read(
    machine: Machine,
) -> None:
    """The project's ``.python-version`` and a ``bin`` inside it are the model's files."""
    (machine.project / ".python-version").write_text("../../../etc\n")
    planted = machine.project / "bin"
    planted.mkdir()
    (planted / "python3").write_text("#!/bin/sh\nexit 0\n")
    (planted / "python3").chmod(0o755)
    environ = {"PATH": f"{planted}:{machine.root / 'shims'}"}

    search = host_python.find(environ, machine.project)

    assert search.found is not None and search.found.folder == VERSION_FOLDER


@pytest.mark.parametrize("global_version", ["system", "../../etc", "9.9.9"])
def test_without_an_interpreter_the_message_says_what_and_where(
    machine: Machine, global_version: str
) -> None:
    (machine.root / "version").write_text(global_version)

    env = detect(machine.project, machine.environ)

    assert env.test_command is None
    assert env.missing is not None
    assert "python3 or python on PATH" in env.missing
    assert str(machine.root / "shims") in env.missing
    assert str(machine.root / "version") in env.missing


def test_detection_names_the_interpreter_by_its_absolute_path(machine: Machine) -> None:
    env = detect(machine.project, machine.environ)

    assert env.test_command is not None
    executable = env.test_command.split()[0]
    assert Path(executable).is_absolute() and Path(executable).resolve().parent.parent == (
        VERSION_FOLDER
    )
    assert executable in env.kind
    assert env.variables["PATH"].split(":")[0] == str(Path(executable).parent)


def test_the_layout_shows_the_version_folder_under_a_home_never_the_home(
    machine: Machine,
) -> None:
    places = ProtectedPlaces(
        harness_home=machine.home.parent / "hh",
        socket=machine.home.parent / "hh" / "daemon.sock",
        env_cache=machine.home.parent / "hh" / "envs",
        homes=(VERSION_FOLDER.parent, machine.home),
        temp=Path("/tmp"),
    )

    recorded = layout.resolve(machine.project, places, network=False, environ=machine.environ)

    assert VERSION_FOLDER in recorded.read_only
    assert all(home not in recorded.read_only for home in places.homes)


def test_a_venv_the_user_activated_keeps_its_own_bin_and_shows_its_base(tmp_path: Path) -> None:
    """Its ``bin/python3`` resolved would be the base interpreter, without the venv's packages."""
    venv = tmp_path / "uservenv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {REAL.parent}\n")
    (venv / "bin" / "python3").symlink_to(REAL)
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)

    search = host_python.find({"PATH": str(venv / "bin")}, project)

    assert search.found is not None
    assert search.found.executable == venv.resolve() / "bin" / "python3"
    assert search.found.folders == (venv.resolve(), VERSION_FOLDER)


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
async def test_the_project_s_tests_run_inside_the_sandbox(machine: Machine) -> None:
    env = detect(machine.project, machine.environ)
    places = ProtectedPlaces.of_this_process()
    recorded = layout.resolve(machine.project, places, network=False, environ=machine.environ)
    assert env.test_command is not None and BWRAP is not None
    async with session_sandbox(machine.project, BWRAP, {}, layout=recorded, places=places) as box:
        result = await run_tests(
            machine.project, env.test_command, env.environ(os.environ), wrap=box.wrap
        )
        # The model's plain ``python3`` finds the same interpreter, not the shim.
        plain = await run_tests(
            machine.project, "python3 -m pytest -q", env.environ(os.environ), wrap=box.wrap
        )
    assert result.passed, result.output_tail
    assert "1 passed" in result.summary
    assert plain.passed, plain.output_tail


def _another_version() -> Path | None:
    """A Python of this machine in a folder no system mount nor the relay shows."""
    base = Path(sys.base_prefix).resolve()
    for candidate in sorted(Path.home().glob(".pyenv/versions/*/bin/python3")):
        folder = candidate.resolve().parent.parent
        if folder != base and candidate.resolve().is_file():
            return folder
    return None


OTHER = _another_version()


@pytest.mark.skipif(probe(BWRAP) is not None, reason=f"{probe(BWRAP)}")
@pytest.mark.skipif(OTHER is None, reason="no second pyenv version on this machine")
async def test_the_recorded_version_folder_is_what_makes_it_run_inside(tmp_path: Path) -> None:
    """Without the layout's mount the interpreter is absent inside; with it, it runs."""
    assert OTHER is not None and BWRAP is not None
    root = tmp_path / "home" / ".pyenv"
    (root / "shims").mkdir(parents=True)
    (root / "versions").mkdir()
    (root / "versions" / "other").symlink_to(OTHER)
    shim = root / "shims" / "python3"
    shim.write_text(SHIM.format(root=root))
    shim.chmod(0o755)
    (root / "version").write_text("other\n")
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    environ = {"PATH": str(root / "shims")}
    places = ProtectedPlaces.of_this_process()
    recorded = layout.resolve(project, places, network=False, environ=environ)
    assert OTHER in recorded.read_only
    env = detect(project, environ)
    assert env.test_command is not None
    probe_command = env.test_command.replace("-m pytest -q", "-c 'print(\"ran-inside\")'")

    outputs = []
    for shown in (recorded, recorded.model_copy(update={"read_only": []})):
        async with session_sandbox(project, BWRAP, {}, layout=shown, places=places) as box:
            outputs.append(
                await run_tests(project, probe_command, env.environ(os.environ), wrap=box.wrap)
            )
    with_mount, without = outputs
    assert with_mount.exit_code == 0 and "ran-inside" in with_mount.output_tail
    assert without.exit_code != 0

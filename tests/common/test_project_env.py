"""The project's own environment: never the harness's interpreter, the project's venv first."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from agent.core.gates.gates import run_tests
from common.project_env import detect, project_venv, without_harness


def make_venv(project: Path, name: str = ".venv") -> Path:
    """A folder shaped like a venv (``bin/python``), enough for detection."""
    bin_dir = project / name / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text("#!/bin/sh\n")
    return project / name


def make_tool(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\necho from-" + name + "\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)


def test_the_harness_venv_is_taken_off_path_and_venv_variables(tmp_path: Path) -> None:
    ours = tmp_path / "harness" / ".venv"
    (ours / "bin").mkdir(parents=True)
    environ = {
        "PATH": os.pathsep.join([str(ours / "bin"), "/usr/local/bin", "/usr/bin"]),
        "VIRTUAL_ENV": str(ours),
        "HOME": "/home/u",
    }

    cleaned = without_harness(environ, (ours.resolve(),))

    assert cleaned == {"PATH": "/usr/local/bin:/usr/bin", "HOME": "/home/u"}


def test_another_venv_in_the_environment_is_the_users_and_stays(tmp_path: Path) -> None:
    environ = {"PATH": "/opt/other/bin:/usr/bin", "VIRTUAL_ENV": "/opt/other"}

    assert without_harness(environ, (tmp_path.resolve(),)) == environ


def test_this_test_runs_in_a_venv_that_counts_as_the_harnesss() -> None:
    bin_dir = str(Path(sys.executable).parent)
    cleaned = without_harness({"PATH": bin_dir + os.pathsep + "/usr/bin"})

    if sys.prefix != sys.base_prefix:
        assert cleaned["PATH"] == "/usr/bin"


def test_a_project_venv_comes_first_and_runs_the_tests(tmp_path: Path) -> None:
    venv = make_venv(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")

    env = detect(tmp_path, {"PATH": "/usr/bin"})

    assert env.kind == "project venv .venv"
    assert env.test_command == ".venv/bin/python -m pytest -q"
    assert env.variables == {"PATH": f"{venv}/bin:/usr/bin", "VIRTUAL_ENV": str(venv)}


def test_venv_is_found_when_there_is_no_dot_venv(tmp_path: Path) -> None:
    make_venv(tmp_path, "venv")

    assert project_venv(tmp_path) == tmp_path / "venv"
    assert detect(tmp_path, {"PATH": "/usr/bin"}).test_command is None  # not a Python project


@pytest.mark.parametrize(
    ("lock", "tool", "command"),
    [
        ("uv.lock", "uv", "uv run python -m pytest -q"),
        ("poetry.lock", "poetry", "poetry run python -m pytest -q"),
    ],
)
def test_a_lock_file_with_its_tool_installed_runs_through_the_tool(
    tmp_path: Path, lock: str, tool: str, command: str
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / lock).write_text("")
    (project / "pyproject.toml").write_text("")
    tools = tmp_path / "tools"
    make_tool(tools, tool)

    assert detect(project, {"PATH": str(tools)}).test_command == command
    assert detect(project, {"PATH": str(tmp_path / "none")}).test_command != command


@pytest.mark.parametrize(
    ("marker", "command"),
    [
        ("package.json", "npm test --silent"),
        ("go.mod", "go test ./..."),
        ("Cargo.toml", "cargo test"),
    ],
)
def test_other_ecosystems(tmp_path: Path, marker: str, command: str) -> None:
    (tmp_path / marker).write_text("")
    (tmp_path / "tests").mkdir()

    assert detect(tmp_path, {"PATH": "/usr/bin"}).test_command == command


def test_a_python_project_on_the_users_path_names_python3_by_its_path(tmp_path: Path) -> None:
    """By absolute path: inside the sandbox ``PATH`` may not lead to it (Debian has no
    ``python``; a pyenv shim runs ``pyenv`` from the home)."""
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    tools = tmp_path / "tools"
    make_tool(tools, "python")

    assert detect(project, {"PATH": str(tools)}).test_command == f"{tools}/python -m pytest -q"
    make_tool(tools, "python3")
    assert detect(project, {"PATH": str(tools)}).test_command == f"{tools}/python3 -m pytest -q"


def test_a_bare_folder_has_no_test_command(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hi")

    assert detect(tmp_path, {"PATH": "/usr/bin"}).test_command is None


async def test_the_gate_runs_with_the_projects_environment(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    make_tool(project / ".venv" / "bin", "python")
    env = detect(project, {"PATH": "/usr/bin:/bin"})

    result = await run_tests(project, "python; echo $VIRTUAL_ENV", env.environ(os.environ))

    assert result.passed
    assert "from-python" in result.output_tail
    assert str(project / ".venv") in result.output_tail

"""Quality presets: detected per ecosystem, run only when the tool is there, overridable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.core.gates import presets
from common.errors import ProjectSettingsError
from common.project_env import ProjectEnv
from common.schemas.quality import QualitySettings
from tests.common.test_safe_read import within


def env_with(tools: Path) -> ProjectEnv:
    return ProjectEnv("PATH", None, {"PATH": str(tools)})


def tool(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)


@pytest.fixture
def tools(tmp_path: Path) -> Path:
    return tmp_path / "bin"


def test_python_gets_ruff_and_mypy_only_where_configured(tmp_path: Path, tools: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    tool(tools, "ruff")
    tool(tools, "mypy")

    plain = presets.decide(project, env_with(tools), None)
    (project / "pyproject.toml").write_text("[tool.mypy]\nstrict = true\n")
    typed = presets.decide(project, env_with(tools), None)

    assert plain.commands == {"lint": "ruff check --quiet ."}
    assert typed.commands == {"lint": "ruff check --quiet .", "types": "mypy ."}
    assert plain.unavailable == [] and plain.source == "preset"


def test_a_tool_missing_from_the_projects_environment_is_reported_not_run(
    tmp_path: Path, tools: Path
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "setup.py").write_text("")
    tools.mkdir()

    checks = presets.decide(project, env_with(tools), None)

    assert checks.commands == {}
    assert checks.unavailable == [
        "lint (`ruff check --quiet .`): not available, ruff is not in the project's environment"
    ]


@pytest.mark.parametrize(
    ("marker", "tool_name", "expected"),
    [
        ("go.mod", "go", {"vet": "go vet ./..."}),
        ("Cargo.toml", "cargo-clippy", {"lint": "cargo clippy --quiet -- -D warnings"}),
    ],
)
def test_go_and_rust_presets(
    tmp_path: Path, tools: Path, marker: str, tool_name: str, expected: dict[str, str]
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / marker).write_text("")
    tool(tools, tool_name)

    assert presets.decide(project, env_with(tools), None).commands == expected


def test_javascript_uses_the_projects_own_eslint_and_tsc(tmp_path: Path, tools: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "package.json").write_text("{}")
    (project / "tsconfig.json").write_text("{}")
    tool(project / "node_modules" / ".bin", "eslint")
    tools.mkdir()

    checks = presets.decide(project, env_with(tools), None)

    assert checks.commands == {"lint": "node_modules/.bin/eslint ."}
    assert len(checks.unavailable) == 1 and checks.unavailable[0].startswith("types")


def test_the_spec_wins_over_the_repository_file_and_null_turns_a_check_off(
    tmp_path: Path, tools: Path
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / ".harness.json").write_text('{"quality": {"checks": {"format": "ruff format"}}}')
    tool(tools, "ruff")

    from_repo = presets.decide(project, env_with(tools), None)
    from_spec = presets.decide(
        project, env_with(tools), QualitySettings(checks={"lint": None, "types": "mypy src"})
    )

    assert from_repo.source == ".harness.json"
    assert from_repo.commands == {"lint": "ruff check --quiet .", "format": "ruff format"}
    assert from_spec.source == "spec"
    assert from_spec.commands == {"types": "mypy src"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", ".harness.json is not JSON: Expecting property name"),
        ('{"quality": {"check": {}}}', ".harness.json is not valid: quality.check: Extra inputs"),
        ('{"quality": {"presets": "maybe"}}', ".harness.json is not valid: quality.presets:"),
    ],
)
def test_a_malformed_settings_file_is_one_line(
    tmp_path: Path, tools: Path, text: str, message: str
) -> None:
    (tmp_path / ".harness.json").write_text(text)

    with pytest.raises(ProjectSettingsError) as caught:
        presets.decide(tmp_path, env_with(tools), None)

    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def _plant(project: Path, name: str, kind: str) -> None:
    """``name`` in ``project`` as a FIFO, a link (to ``/dev/zero`` or to a real file in
    the project), a folder or a file over the cap."""
    path = project / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "inside":
        (project / "real.json").write_text('{"quality": {"checks": {"lint": "true"}}}')
        path.symlink_to("real.json")
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_text(" " * (presets.MAX_SETTINGS_BYTES + 1))


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        ("fifo", "a FIFO"),
        ("zero", "a symbolic link"),
        ("inside", "a symbolic link"),
        ("folder", "a folder"),
        ("big", "larger than 262,144 bytes (262,145)"),
    ],
)
def test_a_settings_file_that_is_not_a_plain_file_is_one_line_and_the_defaults(
    tmp_path: Path, tools: Path, kind: str, what: str
) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    tool(tools, "ruff")
    _plant(tmp_path, ".harness.json", kind)

    checks = within(5, lambda: presets.decide(tmp_path, env_with(tools), None))

    assert isinstance(checks, presets.Checks)
    assert checks.commands == {"lint": "ruff check --quiet ."} and checks.source == "preset"
    (line,) = checks.unavailable
    assert line.startswith(
        f".harness.json is {what}, not a regular file: not read, the run goes on"
    )
    assert presets.load_repo_settings(tmp_path) is None


@pytest.mark.parametrize(("kind", "what"), [("fifo", "a FIFO"), ("zero", "a symbolic link")])
def test_a_pyproject_that_is_not_a_plain_file_means_no_mypy_and_one_line(
    tmp_path: Path, tools: Path, kind: str, what: str
) -> None:
    _plant(tmp_path, "pyproject.toml", kind)
    tool(tools, "ruff")
    tool(tools, "mypy")

    checks = within(5, lambda: presets.decide(tmp_path, env_with(tools), None))

    assert isinstance(checks, presets.Checks)
    assert checks.commands == {"lint": "ruff check --quiet ."}
    assert checks.unavailable == [
        f"types (mypy): pyproject.toml is {what}: not read, mypy is not run"
    ]

"""Quality presets: the checks beyond the tests that the harness runs for each ecosystem.

Python: ruff (and mypy where the project configures it); JavaScript/TypeScript:
eslint and tsc from the project's ``node_modules``; Go: go vet; Rust: clippy. A check
runs only when its tool is in the project's own environment; otherwise it is reported
as not available, never installed. The spec's ``quality`` settings, else the
repository's ``.harness.json``, change the preset.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from common.errors import ProjectSettingsError
from common.project_env import ProjectEnv
from common.schemas.quality import SETTINGS_FILE, QualitySettings, RepoSettings

_PYTHON_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "requirements.txt")


@dataclass(frozen=True)
class Candidate:
    """One check a preset would run, and the tool it needs."""

    name: str
    command: str
    tool: str
    """The executable that must be found (a name on ``PATH`` or a path in the project)."""


@dataclass(frozen=True)
class Checks:
    """The decided checks and what could not run."""

    commands: dict[str, str] = field(default_factory=dict)
    """Check name → shell command, in the order they run."""
    unavailable: list[str] = field(default_factory=list)
    """One line per preset check whose tool is not in the project's environment."""
    source: str = "preset"
    """Where overrides came from: ``preset``, ``spec`` or ``.harness.json``."""


def load_repo_settings(project_dir: Path) -> RepoSettings | None:
    """The repository's ``.harness.json``, validated; ``None`` when it has none.

    Raises:
        ProjectSettingsError: the file is not JSON or not valid settings (one line).
    """
    path = project_dir / SETTINGS_FILE
    if not path.exists():
        return None
    try:
        return RepoSettings.model_validate(json.loads(path.read_text()))
    except json.JSONDecodeError as e:
        raise ProjectSettingsError(f"{SETTINGS_FILE} is not JSON: {e.msg} (line {e.lineno})") from e
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ProjectSettingsError(f"{SETTINGS_FILE} is not valid: {where}: {first['msg']}") from e


def candidates(project_dir: Path) -> list[Candidate]:
    """The ecosystem's preset checks, from the project's files."""
    found: list[Candidate] = []
    if (project_dir / "package.json").exists():
        bin_dir = "node_modules/.bin"
        found.append(Candidate("lint", f"{bin_dir}/eslint .", f"{bin_dir}/eslint"))
        if (project_dir / "tsconfig.json").exists():
            found.append(Candidate("types", f"{bin_dir}/tsc --noEmit", f"{bin_dir}/tsc"))
    if (project_dir / "go.mod").exists():
        found.append(Candidate("vet", "go vet ./...", "go"))
    if (project_dir / "Cargo.toml").exists():
        found.append(Candidate("lint", "cargo clippy --quiet -- -D warnings", "cargo-clippy"))
    if any((project_dir / marker).exists() for marker in _PYTHON_MARKERS) and not found:
        found.append(Candidate("lint", "ruff check --quiet .", "ruff"))
        if _configures_mypy(project_dir):
            found.append(Candidate("types", "mypy .", "mypy"))
    return found


def _configures_mypy(project_dir: Path) -> bool:
    if (project_dir / "mypy.ini").exists():
        return True
    pyproject = project_dir / "pyproject.toml"
    return pyproject.exists() and "[tool.mypy]" in pyproject.read_text(errors="replace")


def available(project_dir: Path, env: ProjectEnv, tool: str) -> bool:
    """Whether ``tool`` is in the project's environment (its path, or on its ``PATH``)."""
    if "/" in tool:
        return (project_dir / tool).exists()
    return shutil.which(tool, path=env.variables.get("PATH", "")) is not None


def decide(project_dir: Path, env: ProjectEnv, spec_settings: QualitySettings | None) -> Checks:
    """The checks to run: the preset (tools present only), changed by the settings.

    Raises:
        ProjectSettingsError: the repository's settings file is malformed.
    """
    repo = load_repo_settings(project_dir)
    settings, source = spec_settings, "spec"
    if settings is None and repo is not None and repo.quality is not None:
        settings, source = repo.quality, SETTINGS_FILE
    if settings is None:
        settings, source = QualitySettings(), "preset"
    commands: dict[str, str] = {}
    unavailable: list[str] = []
    if settings.presets:
        for check in candidates(project_dir):
            if check.name in settings.checks:
                continue  # replaced or turned off below
            if available(project_dir, env, check.tool):
                commands[check.name] = check.command
            else:
                unavailable.append(
                    f"{check.name} (`{check.command}`): not available, {check.tool} is not "
                    "in the project's environment"
                )
    for name, command in settings.checks.items():
        if command is not None:
            commands[name] = command
    return Checks(commands, unavailable, source)

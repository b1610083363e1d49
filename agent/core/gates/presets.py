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

from common import safe_read
from common.errors import ProjectSettingsError
from common.project_env import ProjectEnv
from common.schemas.quality import SETTINGS_FILE, QualitySettings, RepoSettings

_PYTHON_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "requirements.txt")
MAX_SETTINGS_BYTES = 256 * 1024
"""The largest ``.harness.json`` read: a settings file is a few lines."""
MAX_MANIFEST_BYTES = 1 << 20
"""The largest ``pyproject.toml`` read (to see whether it configures mypy)."""


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
    """One line per preset check that cannot run as the project asks (its tool is not in
    the project's environment), and per project file the harness refused to read (a
    FIFO, a link, a device, too large: :mod:`common.safe_read`)."""
    source: str = "preset"
    """Where overrides came from: ``preset``, ``spec`` or ``.harness.json``."""


def load_repo_settings(project_dir: Path) -> RepoSettings | None:
    """The repository's ``.harness.json``, validated; ``None`` when it has none, or one
    the harness refuses to read (:func:`decide` says why, in one line).

    Raises:
        ProjectSettingsError: the file is not JSON or not valid settings (one line).
    """
    return _repo_settings(project_dir)[0]


def _repo_settings(project_dir: Path) -> tuple[RepoSettings | None, str | None]:
    """The settings (as :func:`load_repo_settings`), and why the file was not read.

    A ``.harness.json`` that is not a regular file is never read, a link to a regular
    file inside the project included: a link makes the harness's settings a file the
    outbound review does not protect (editing ``docs/example.json`` would change what
    ``.harness.json -> docs/example.json`` says), one that resolves differently in every
    checkout and slot; a FIFO would stop the agent, a link to ``/dev/zero`` fill its
    memory. None of them is a settings file a person wrote, so the run goes on with the
    spec's settings and the defaults, and says so.
    """
    path = project_dir / SETTINGS_FILE
    try:
        raw = safe_read.read_if_present(path, MAX_SETTINGS_BYTES)
    except safe_read.Refused as e:
        return None, (
            f"{SETTINGS_FILE} is {e.what}, not a regular file: not read, the run goes on "
            "with the spec's settings and the defaults (make it a plain file to use it)"
        )
    except OSError as e:
        raise ProjectSettingsError(f"{SETTINGS_FILE} cannot be read: {e.strerror}") from e
    if raw is None:
        return None, None
    try:
        return RepoSettings.model_validate(json.loads(raw)), None
    except json.JSONDecodeError as e:
        raise ProjectSettingsError(f"{SETTINGS_FILE} is not JSON: {e.msg} (line {e.lineno})") from e
    except UnicodeDecodeError as e:
        raise ProjectSettingsError(f"{SETTINGS_FILE} is not UTF-8 text") from e
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ProjectSettingsError(f"{SETTINGS_FILE} is not valid: {where}: {first['msg']}") from e


def candidates(project_dir: Path, notes: list[str] | None = None) -> list[Candidate]:
    """The ecosystem's preset checks, from the project's files; ``notes`` gets one line
    per file that decides a check and that the harness refused to read."""
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
        if _configures_mypy(project_dir, notes if notes is not None else []):
            found.append(Candidate("types", "mypy .", "mypy"))
    return found


def _configures_mypy(project_dir: Path, notes: list[str]) -> bool:
    """``mypy.ini``, or a ``[tool.mypy]`` table in ``pyproject.toml``; a ``pyproject.toml``
    that is not a regular file (a FIFO, a link to ``/dev/zero``) is not read: no mypy."""
    if (project_dir / "mypy.ini").exists():
        return True
    try:
        raw = safe_read.read_if_present(project_dir / "pyproject.toml", MAX_MANIFEST_BYTES)
    except safe_read.Refused as e:
        notes.append(f"types (mypy): pyproject.toml is {e.what}: not read, mypy is not run")
        return False
    except OSError as e:
        notes.append(f"types (mypy): pyproject.toml cannot be read ({e.strerror}): no mypy")
        return False
    return raw is not None and b"[tool.mypy]" in raw


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
    repo, refused = _repo_settings(project_dir)
    settings, source = spec_settings, "spec"
    if settings is None and repo is not None and repo.quality is not None:
        settings, source = repo.quality, SETTINGS_FILE
    if settings is None:
        settings, source = QualitySettings(), "preset"
    commands: dict[str, str] = {}
    unavailable: list[str] = [refused] if refused is not None else []
    if settings.presets:
        for check in candidates(project_dir, unavailable):
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

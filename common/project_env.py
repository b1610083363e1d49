"""The target project's own environment: the interpreter and tools its commands run with.

Why: the harness runs in a virtual environment of its own, which holds the harness's
dependencies and nothing of the project's. A test run or a model's ``pip install`` in
that environment would test the wrong thing and change the harness. So the gates and
the model's Bash get the project's environment: its ``.venv``/``venv`` first on
``PATH`` when it has one, else the user's ``PATH`` as the harness found it, with the
harness's own interpreter taken out.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from common import host_python

VENV_NAMES = (".venv", "venv")
"""Folders in the project that count as its own Python environment, in this order."""
_PYTHON_MARKERS = ("pyproject.toml", "pytest.ini", "setup.cfg", "setup.py", "tox.ini", "tests")
_HIDDEN_VARIABLES = ("VIRTUAL_ENV", "PYTHONHOME", "CONDA_PREFIX", "__PYVENV_LAUNCHER__")


@dataclass(frozen=True)
class ProjectEnv:
    """How the project's commands run: the test command, and the variables they need."""

    kind: str
    """A label for people: ``project venv .venv``, ``uv``, ``npm``, ``PATH``…"""
    test_command: str | None
    """The detected test command (``None``: none found)."""
    variables: dict[str, str] = field(default_factory=dict)
    """``PATH`` (and ``VIRTUAL_ENV`` for a project venv) for every project command."""
    missing: str | None = None
    """For a Python project without an interpreter: what was looked for, and where."""
    root: str | None = None
    """The project venv's folder resolved (links followed) when it was detected, as
    recorded at project_verification: the gates run its interpreter by this path
    (:meth:`gate_command`), never through a ``.venv`` link the model can replace."""

    def folders_in(self, project: Path) -> tuple[Path, ...]:
        """Its folders inside ``project`` (a project venv): a slot's worktree has none of
        them (git ignores them), so a slot's sandbox shows the project's read-only."""
        venv = self.variables.get("VIRTUAL_ENV")
        if venv is None:
            return ()
        path = Path(venv)
        return (path,) if path.is_relative_to(project) and path.is_dir() else ()

    def environ(self, base: Mapping[str, str]) -> dict[str, str]:
        """``base`` without the harness's interpreter, with this project's variables."""
        return {**without_harness(base), **self.variables}

    def root_now(self) -> str | None:
        """The project venv's folder as it resolves now (``None``: no project venv)."""
        venv = self.variables.get("VIRTUAL_ENV")
        return str(Path(venv).resolve()) if venv is not None else None

    def gate_environ(self, base: Mapping[str, str]) -> dict[str, str]:
        """:meth:`environ` for a gate: the venv named by its recorded :attr:`root`.

        Why: ``VIRTUAL_ENV`` and the ``PATH`` entry name the venv where the project has
        it (``PROJECT/.venv``), a path the model's sessions can write or, in a slot's
        worktree and for the demo's linked venv, a link it can replace; a script put
        there answered for the tests ("99 passed", issue 26 finding 5).
        """
        environ = self.environ(base)
        venv, root = self.variables.get("VIRTUAL_ENV"), self.root
        if venv is None or root is None:
            return environ
        entries = environ.get("PATH", "").split(os.pathsep)
        moved = [root + entry[len(venv) :] if _under(entry, venv) else entry for entry in entries]
        return {**environ, "VIRTUAL_ENV": root, "PATH": os.pathsep.join(moved)}

    def gate_command(self, command: str, project: Path) -> str:
        """``command`` with a first word that names the project venv (``.venv/bin/python``)
        naming it by its recorded :attr:`root` instead (see :meth:`gate_environ`); any
        other command as it is (a quoted or absolute first word, a bare name, which
        :meth:`gate_environ`'s ``PATH`` finds in the recorded venv)."""
        venv, root = self.variables.get("VIRTUAL_ENV"), self.root
        if venv is None or root is None:
            return command
        stripped = command.lstrip()
        first = stripped.split(maxsplit=1)[0] if stripped else ""
        try:
            words = shlex.split(command)
        except ValueError:
            return command
        if not words or words[0] != first or Path(first).is_absolute() or "/" not in first:
            return command
        named = os.path.normpath(project / first)
        if not _under(named, venv):
            return command
        return shlex.quote(root + named[len(venv) :]) + stripped[len(first) :]


def _under(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or inside it, as written (no link followed)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def harness_prefixes() -> tuple[Path, ...]:
    """The harness's own virtual environment; none when it runs on a system interpreter,
    which is the user's as much as ours."""
    if sys.prefix == sys.base_prefix:
        return ()
    return (Path(sys.prefix).resolve(),)


def without_harness(
    environ: Mapping[str, str], prefixes: tuple[Path, ...] | None = None
) -> dict[str, str]:
    """``environ`` with the harness's venv off ``PATH`` and no venv variables pointing at it.

    A ``PATH`` entry inside one of ``prefixes`` is dropped; ``VIRTUAL_ENV`` and the
    like are dropped when they point inside one. Everything else stays as it is.
    """
    ours = harness_prefixes() if prefixes is None else prefixes
    result = dict(environ)
    entries = [e for e in environ.get("PATH", "").split(os.pathsep) if e]
    kept = [entry for entry in entries if not _inside(Path(entry), ours)]
    result["PATH"] = os.pathsep.join(kept)
    for name in _HIDDEN_VARIABLES:
        value = environ.get(name)
        if value is not None and _inside(Path(value), ours):
            del result[name]
    return result


def _inside(path: Path, prefixes: tuple[Path, ...]) -> bool:
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return any(resolved == prefix or prefix in resolved.parents for prefix in prefixes)


def project_venv(project_dir: Path) -> Path | None:
    """The project's own virtual environment (``.venv`` or ``venv`` with a python), if any."""
    for name in VENV_NAMES:
        candidate = project_dir / name
        if (candidate / "bin" / "python").exists():
            return candidate
    return None


def is_python_project(project_dir: Path) -> bool:
    """The project has a file or folder that says its tests are Python's."""
    return any((project_dir / marker).exists() for marker in _PYTHON_MARKERS)


def detect(project_dir: Path, environ: Mapping[str, str]) -> ProjectEnv:
    """The project's environment and test command, from its files and the user's ``PATH``.

    Order: a project venv (``.venv``/``venv``), ``uv run`` where ``uv.lock`` is present
    and uv is installed, ``poetry run`` likewise, ``npm test``, ``go test ./...``,
    ``cargo test``, else a Python project with the user's interpreter, named by its
    absolute path (:mod:`common.host_python`: a pyenv shim or a bare ``python``
    does not run inside the sandbox).
    """
    base_path = without_harness(environ).get("PATH", "")
    venv = project_venv(project_dir)
    python_project = is_python_project(project_dir)
    if venv is not None:
        path = os.pathsep.join(filter(None, [str(venv / "bin"), base_path]))
        variables = {"PATH": path, "VIRTUAL_ENV": str(venv)}
        command = f"{venv.name}/bin/python -m pytest -q" if python_project else None
        root = str(venv.resolve())
        return ProjectEnv(f"project venv {venv.name}", command, variables, root=root)
    variables = {"PATH": base_path}

    def on_path(tool: str) -> bool:
        return shutil.which(tool, path=base_path) is not None

    if (project_dir / "uv.lock").exists() and on_path("uv"):
        return ProjectEnv("uv", "uv run python -m pytest -q", variables)
    if (project_dir / "poetry.lock").exists() and on_path("poetry"):
        return ProjectEnv("poetry", "poetry run python -m pytest -q", variables)
    if (project_dir / "package.json").exists():
        return ProjectEnv("npm", "npm test --silent", variables)
    if (project_dir / "go.mod").exists():
        return ProjectEnv("go", "go test ./...", variables)
    if (project_dir / "Cargo.toml").exists():
        return ProjectEnv("cargo", "cargo test", variables)
    if python_project:
        search = host_python.find(variables, project_dir)
        if search.found is None:
            missing = f"no Python interpreter for the tests: looked for {search.looked_for}"
            return ProjectEnv("PATH", None, variables, missing)
        executable = search.found.executable
        command = f"{shlex.quote(str(executable))} -m pytest -q"
        entries = base_path.split(os.pathsep) if base_path else []
        if str(executable.parent) not in entries:
            # Its own bin first: a plain ``python3`` in the model's Bash then finds it
            # inside the sandbox too, not the pyenv shim ahead of it on PATH.
            variables = {"PATH": os.pathsep.join([str(executable.parent), *entries])}
        return ProjectEnv(f"the user's Python {executable}", command, variables)
    return ProjectEnv("PATH", None, variables)


def pinned(
    detected: ProjectEnv,
    recorded_kind: str | None,
    recorded_variables: dict[str, str] | None,
    recorded_test_command: str | None,
    recorded_root: str | None = None,
) -> tuple[ProjectEnv, str | None]:
    """The environment approved at project_verification, and a line when the project
    now looks different; before project_verification (nothing recorded), ``detected``.

    Why: detection reads the project's files, which the sessions write. A ``.venv/bin/
    python3`` that a session planted (a script that exits 0) would put itself first on
    the gates' ``PATH`` at the next start (``harness resume``) and answer for the
    recorded ``python3 -m pytest -q``. The approved environment is kept instead; a
    difference is told, never adopted. ``recorded_root`` is the venv's folder as it
    resolved then (:attr:`ProjectEnv.root`; a state from before it was recorded takes
    the detected one while the venv is where it was).
    """
    if recorded_kind is None or recorded_variables is None:
        return detected, None
    same = detected.kind == recorded_kind and detected.variables.get(
        "VIRTUAL_ENV"
    ) == recorded_variables.get("VIRTUAL_ENV")
    root = recorded_root or (detected.root if same else None)
    kept = ProjectEnv(recorded_kind, recorded_test_command, dict(recorded_variables), root=root)
    if same:
        return kept, None
    return kept, (
        f"project environment: the project now looks like {detected.kind}, not "
        f"{kept.kind} as approved at project_verification; the approved one is kept"
    )

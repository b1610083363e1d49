"""The user's Python, found as their shell would find it, without running anything.

Why: a project without a venv of its own runs its tests with the user's interpreter.
Inside the sandbox a bare ``python -m pytest`` fails where it works in the user's
shell: a pyenv shim is a bash script that runs ``pyenv`` from the home (not shown
inside), and Debian has no ``/usr/bin/python``. So at project_verification the
interpreter is resolved here, on the host, to an absolute file, and the test command
names that file; its version folder is mounted read-only (:mod:`agent.sandbox.layout`).

Nothing of the project is read or run: ``PATH`` entries inside the project are
skipped, a pyenv shim is resolved from ``PYENV_VERSION`` or the *user's* global
``$(pyenv root)/version`` file (a project's ``.python-version`` is the project's
file, and would let it pick any folder), and no interpreter is started.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from common import safe_read

NAMES = ("python3", "python")
"""What is looked for on ``PATH``, in this order (Debian has only ``python3``)."""
MAX_SHIM_BYTES = 64 * 1024
"""A pyenv shim is a short script; a bigger file is not one."""
MAX_VERSION_BYTES = 4096
"""pyenv's global ``version`` file names a version or two."""


@dataclass(frozen=True)
class HostPython:
    """An interpreter the sandbox can run, and the folder it needs to see."""

    executable: Path
    """Absolute, symlinks resolved: a real file."""
    folder: Path
    """Its installation folder (``…/versions/3.12.1``: the parent of its ``bin``)."""
    found_as: str
    """How it was found, for people (``python3 on PATH via pyenv 3.12.1``)."""
    also: tuple[Path, ...] = ()
    """Further folders it needs (a venv's base interpreter)."""

    @property
    def folders(self) -> tuple[Path, ...]:
        """Every folder the sandbox must show for it to run."""
        return (self.folder, *self.also)


@dataclass(frozen=True)
class Search:
    """The result of a search: the interpreter, or what was looked for and where."""

    found: HostPython | None
    looked_for: str
    """``python3 or python in /a, /b (pyenv shims resolved from …)``."""


def find(environ: Mapping[str, str], project_dir: Path) -> Search:
    """The first ``python3``/``python`` on ``environ``'s ``PATH`` the sandbox can run.

    ``environ`` should already be without the harness's venv
    (:func:`common.project_env.without_harness`).
    """
    project = Path(os.path.realpath(project_dir))
    entries = [e for e in environ.get("PATH", "").split(os.pathsep) if e]
    searched = [e for e in entries if not _inside(Path(os.path.realpath(e)), project)]
    notes: list[str] = []
    for name in NAMES:
        for entry in searched:
            candidate = Path(entry) / name
            if not (candidate.is_file() and os.access(candidate, os.X_OK)):
                continue
            found = _resolve(candidate, name, environ, notes)
            if found is not None:
                return Search(found, "")
    where = ", ".join(searched) or "an empty PATH"
    looked_for = f"{' or '.join(NAMES)} on PATH ({where})"
    if notes:
        looked_for += "; " + "; ".join(notes)
    return Search(None, looked_for)


def _resolve(
    candidate: Path, name: str, environ: Mapping[str, str], notes: list[str]
) -> HostPython | None:
    root = _pyenv_root_of_shim(candidate)
    if root is not None:
        return _from_pyenv(root, name, environ, notes)
    real = Path(os.path.realpath(candidate))
    if not real.is_file():
        return None
    venv = Path(os.path.realpath(candidate.parent.parent))
    if (venv / "pyvenv.cfg").is_file():
        # A venv the user activated: its own ``bin/python3`` (a link to the base
        # interpreter that finds the venv's packages by where it sits), its folder, and
        # the base interpreter's folder.
        executable = venv / "bin" / name
        found_as = f"{name} on PATH ({candidate}), a venv made from {real}"
        return HostPython(executable, venv, found_as, (_installation(real),))
    return HostPython(real, _installation(real), f"{name} on PATH ({candidate})")


def _pyenv_root_of_shim(candidate: Path) -> Path | None:
    """The pyenv root when ``candidate`` is a pyenv shim (``ROOT/shims/NAME``, a script)."""
    if candidate.parent.name != "shims":
        return None
    try:
        head = safe_read.read_bytes(candidate, MAX_SHIM_BYTES)
    except OSError:  # not a regular file, or bigger than a shim: not one
        return None
    if not head.startswith(b"#!") or b"pyenv" not in head:
        return None
    return Path(os.path.realpath(candidate.parent.parent))


def _from_pyenv(
    root: Path, name: str, environ: Mapping[str, str], notes: list[str]
) -> HostPython | None:
    """The version a shim would run: ``PYENV_VERSION``, else the user's global version file.

    ``system`` (or nothing set) means the next ``PATH`` entry, as pyenv does.
    """
    global_file = root / "version"
    source = "PYENV_VERSION"
    wanted = environ.get("PYENV_VERSION", "").split(":")[0].strip()
    if not wanted:
        source = str(global_file)
        try:
            lines = safe_read.read_text(global_file, MAX_VERSION_BYTES).split()
        except OSError:
            lines = []
        wanted = lines[0] if lines else ""
    if not wanted or wanted == "system":
        notes.append(f"the pyenv shim in {root / 'shims'} means `system` ({source})")
        return None
    if "/" in wanted or wanted in (".", ".."):
        notes.append(f"pyenv version {wanted!r} from {source} is not a version name")
        return None
    executable = root / "versions" / wanted / "bin" / name
    if not executable.is_file():
        notes.append(f"pyenv version {wanted} ({source}) has no {executable}")
        return None
    real = Path(os.path.realpath(executable))
    folder = Path(os.path.realpath(root / "versions" / wanted))
    if not _inside(real, folder):
        folder = _installation(real)
    return HostPython(real, folder, f"{name} on PATH via pyenv {wanted} ({source})")


def _installation(executable: Path) -> Path:
    """The installation folder: the parent of ``bin``, else the executable's own folder."""
    parent = executable.parent
    return parent.parent if parent.name == "bin" else parent


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents

"""The project-dependent part of the sandbox: resolved once, recorded, compared later.

What a project's venv needs outside the project (its target when ``.venv`` is a
symlink, the interpreter it was made from, the folders its ``.pth`` files add to
``sys.path``) is read from the venv's own files. Those files are the person's at
project_verification and possibly the model's after the first session. So:

- :func:`resolve` reads them (as text: no interpreter runs, so no ``.pth``
  ``import`` line runs on the host) and checks every folder against the deny list
  (:mod:`agent.sandbox.protected`); the agent records the result in its state at
  project_verification;
- every sandbox is built from the record, checked again (:func:`recheck`);
- after each session, :func:`diff` compares the record with a fresh :func:`resolve`:
  a difference stops the run at a checkpoint (:mod:`agent.core.run.integrity`).

Why text and not ``python -I -c 'import sys; print(sys.path)'``: that would run the
code of the venv's ``.pth`` ``import`` lines and ``sitecustomize`` with the
harness's authority. setuptools' editable finders are read as data (their
``MAPPING``); folders that only other code adds (an ``editables`` redirector, a
custom ``.pth`` import) are not shown, and the project's tests then fail to import
them, visibly.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent.sandbox.plan import SYSTEM_DIRS
from agent.sandbox.protected import ProtectedPlaces, holds_workspaces, why_denied
from common import host_python, safe_read
from common.project_env import is_python_project, project_venv, without_harness
from common.schemas.sandbox_layout import SandboxLayout

Log = Callable[[str], None]


@dataclass(frozen=True)
class Named:
    """A folder the venv names, and where it is named (for the person's log line)."""

    path: Path
    source: str


def venv_folders(project_dir: Path) -> tuple[Path | None, Path | None, list[Named]]:
    """The project venv, its resolved target and the folders its files name.

    Relative and missing folders are ignored, as Python ignores them.
    """
    venv = project_venv(project_dir)
    if venv is None:
        return None, None, []
    target = venv.resolve()
    named = [Named(target, f"the target of {venv.name}")]
    home = _venv_home(target)
    if home is not None:
        named.append(Named(home.parent, f"{venv.name}/pyvenv.cfg home"))
    named += _pth_folders(target, venv.name)
    return venv, target, named


def _pth_folders(venv: Path, shown_as: str) -> list[Named]:
    """Absolute folders named by the venv's ``.pth`` files (``import`` lines are code: skipped)
    and by setuptools' editable finders (read as data, see :func:`_finder_folders`)."""
    found = []
    for pth in sorted(venv.glob("lib/python*/site-packages/*.pth")):
        source = f"{shown_as}/{pth.relative_to(venv)}"
        for line in _text(pth).splitlines():
            entry = line.strip()
            if entry.startswith("/"):
                found.append(Named(Path(entry), source))
    for finder in sorted(venv.glob(f"lib/python*/site-packages/{_FINDER_GLOB}")):
        source = f"{shown_as}/{finder.relative_to(venv)}"
        found += [Named(path, source) for path in _finder_folders(finder)]
    return found


_FINDER_GLOB = "__editable___*_finder.py"
MAX_BYTES = 1 << 20
"""The largest venv file read: a bigger one is not a venv's own and is ignored."""


def _text(path: Path) -> str:
    """``path``'s text when it is a regular file of at most ``MAX_BYTES``, else ``""``.

    Why so careful: the files are the model's after the first session. A FIFO or a
    link to ``/dev/zero`` or ``/proc/kmsg`` would block or flood the agent; a link
    anywhere else is not the venv's own file (:mod:`common.safe_read`).
    """
    try:
        return safe_read.read_text(path, MAX_BYTES)
    except OSError:
        return ""


def _finder_folders(finder: Path) -> list[Path]:
    """The package folders of a setuptools editable install (``pip install -e``).

    setuptools writes ``MAPPING = {"pkg": "/src/pkg"}`` into a finder module that a
    ``.pth`` ``import`` line installs. The dict is read with :func:`ast.literal_eval`,
    never imported: each package folder (a module file's folder) is named, not the
    repository around it.
    """
    try:
        tree = ast.parse(_text(finder))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    target: ast.expr
    value: ast.expr | None
    for node in tree.body:
        if isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        else:
            continue
        if not isinstance(target, ast.Name) or target.id != "MAPPING" or value is None:
            continue
        try:
            mapping = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            return []
        if not isinstance(mapping, dict):
            return []
        paths = [Path(v) for v in mapping.values() if isinstance(v, str) and v.startswith("/")]
        return [path.parent if path.suffix == ".py" else path for path in paths]
    return []


def _venv_home(venv: Path) -> Path | None:
    """The ``home`` of the venv's ``pyvenv.cfg``: the folder of the interpreter it was made from."""
    for line in _text(venv / "pyvenv.cfg").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip().startswith("/"):
            return Path(value.strip())
    return None


def interpreter_folders(project_dir: Path, environ: Mapping[str, str]) -> list[Named]:
    """The version folder of the user's Python, for a Python project without a venv.

    Why: its tests run with that interpreter by absolute path
    (:func:`common.project_env.detect`); one under the home (a pyenv version) is
    shown by its own folder, which the deny list checks like any other.
    """
    if project_venv(project_dir) is not None or not is_python_project(project_dir):
        return []
    found = host_python.find(without_harness(environ), project_dir).found
    return [] if found is None else [Named(folder, found.found_as) for folder in found.folders]


def resolve(
    project_dir: Path,
    places: ProtectedPlaces,
    *,
    network: bool,
    environ: Mapping[str, str] | None = None,
) -> SandboxLayout:
    """The layout the project's files and the user's ``PATH`` (``environ``, default this
    process's) ask for now, with every denied folder left out."""
    venv, target, named = venv_folders(project_dir)
    named += interpreter_folders(project_dir, os.environ if environ is None else environ)
    kept, left_out = _screen(named, project_dir, places)
    return SandboxLayout(
        read_only=kept, venv=venv, venv_target=target, network=network, left_out=left_out
    )


def recheck(
    folders: Iterable[Path], project_dir: Path, places: ProtectedPlaces
) -> tuple[list[Path], list[str]]:
    """The recorded ``folders`` that may still be shown, and why the others may not.

    Run for every sandbox: a recorded folder that became a symlink, or that a deny
    rule now covers, is left out rather than followed.
    """
    named = [Named(path, "the recorded layout") for path in folders]
    return _screen(named, project_dir, places, recorded=True)


def _screen(
    named: list[Named], project_dir: Path, places: ProtectedPlaces, *, recorded: bool = False
) -> tuple[list[Path], list[str]]:
    covered = [project_dir.resolve(), *(Path(d).resolve() for d in SYSTEM_DIRS)]
    kept: list[Path] = []
    left_out: list[str] = []
    for item in named:
        if not item.path.is_absolute() or not item.path.is_dir():
            continue
        real = item.path.resolve()
        if any(real == c or c in real.parents for c in covered):
            continue  # visible anyway (the project, a system folder): nothing to mount
        reason = why_denied(real, places)
        if reason is None and recorded and real != item.path:
            reason = f"it is now a link to {real}"
        if reason is None and holds_workspaces(real):
            reason = "it holds a harness workspace (another run's checkpoints and decisions)"
        if reason is not None:
            note = f"{item.path} ({item.source}): {reason}"
            if note not in left_out:
                left_out.append(note)
            continue
        if not any(real == k or k in real.parents for k in kept):
            kept.append(real)
    return kept, left_out


def diff(recorded: SandboxLayout, now: SandboxLayout) -> list[str]:
    """What differs between two layouts, one line each (``left_out`` is never compared)."""
    lines: list[str] = []
    if recorded.venv != now.venv:
        lines.append(f"project venv: {recorded.venv or 'none'} → {now.venv or 'none'}")
    if recorded.venv_target != now.venv_target:
        before, after = recorded.venv_target or "none", now.venv_target or "none"
        lines.append(f"venv target: {before} → {after}")
    lines += [f"read-only folder added: {p}" for p in now.read_only if p not in recorded.read_only]
    lines += [f"read-only folder gone: {p}" for p in recorded.read_only if p not in now.read_only]
    if recorded.network != now.network:
        lines.append(f"host network: {_on(recorded.network)} → {_on(now.network)}")
    return lines


def _on(flag: bool) -> str:
    return "on" if flag else "off"


@dataclass
class LayoutKeeper:
    """What the integrity check needs: the project's layout now, and a way to put an
    approved one into the live sandbox."""

    project_dir: Path
    places: ProtectedPlaces
    network: bool
    apply: Callable[[SandboxLayout], None]
    """Rebuild the running sandbox (its wrapper and test-gate command) from a layout."""
    log: Log = field(default=lambda _line: None)
    """Where a folder newly left out is told, once per agent (an attempt, most likely)."""
    told: set[str] = field(default_factory=set)

    def now(self) -> SandboxLayout:
        """The layout the project's files ask for now (denied folders left out, told)."""
        found = resolve(self.project_dir, self.places, network=self.network)
        for note in found.left_out:
            if note not in self.told:
                self.told.add(note)
                self.log(f"sandbox: left out {note}")
        return found


def at_start(
    recorded: SandboxLayout | None,
    verifying: bool,
    project_dir: Path,
    places: ProtectedPlaces,
    *,
    network: bool,
    log: Log,
) -> SandboxLayout:
    """The layout an agent's sandbox uses from its start: the recorded one, except
    while the run is at project_verification (no session ran: the files are the
    person's) or when the state predates the record (then it is recorded now)."""
    if recorded is not None and not verifying:
        return recorded
    layout = resolve(project_dir, places, network=network)
    when = "at project_verification" if verifying else "now (the state had none)"
    shown = ", ".join(str(p) for p in layout.read_only) or "none"
    log(f"sandbox layout recorded {when}: extra read-only folders {shown}")
    for note in layout.left_out:
        log(f"sandbox: left out {note}")
    return layout

"""Files the harness reads, anywhere in the project: the model may read them, not write them.

* The harness's own folders at the project's top (:data:`HARNESS_FOLDERS`: ``.git`` and the
  workspace folder): never written, not even deleted.
* A ``.git`` folder or file at any depth (the top repository, a nested one, a worktree or
  submodule pointer ``gitdir: …``): the harness's git reads it, and a nested repository's
  configuration and attributes name filters, hooks and drivers git would run (issue 14:
  ``echo … > vendor/lib/.git/config`` ran a ``filter.x.clean`` program on the host).
* ``*.pth`` files and ``pyvenv.cfg``: they steer Python's import path, and they steered the
  sandbox's read-only mounts (issue 14: a ``.pth`` naming ``HARNESS_HOME`` showed the
  decision key to the next sandbox).

Names are compared case-insensitively (``.GIT`` is ``.git`` on a case-insensitive file
system); ``x.pth.txt`` or a folder ``git/`` are ordinary files. This module is the one
place the rule is written: :func:`protection` decides it for a path, :func:`is_protected_name`
for one folder entry; the Bash policy (:mod:`.paths`, :mod:`.files`) and the file tools'
hook (:mod:`agent.core.session.hooks`) both ask :func:`refusal_at`, so a path refused to one is
refused to the other.
"""

from __future__ import annotations

import enum
import os
from pathlib import Path, PurePath

from common.paths import WORKSPACE_ROOT_NAME

GIT_ENTRY = ".git"
PYTHON_PATH_SUFFIX = ".pth"
VENV_CONFIG = "pyvenv.cfg"
#: Folders of the project that belong to the harness: the model never writes there.
HARNESS_FOLDERS = (GIT_ENTRY, WORKSPACE_ROOT_NAME)
#: What a pattern (``find -path '*/.git/*'``) naming a protected file contains.
PROTECTED_MARKS = (GIT_ENTRY, PYTHON_PATH_SUFFIX, VENV_CONFIG)


class Protection(enum.Enum):
    """Why the harness keeps the model's writes off a path."""

    HARNESS_FOLDER = "harness folder"
    """Inside one of :data:`HARNESS_FOLDERS` at the project's top: not even removed."""
    GIT_ENTRY = "git entry"
    """A ``.git`` folder or file at any depth, or inside one: may be removed."""
    PYTHON_PATH = "python path"
    """A ``*.pth`` file or ``pyvenv.cfg``: may be removed."""


def is_protected_name(name: str) -> bool:
    """Whether a folder entry called ``name`` is a file the harness reads (``.git``,
    ``*.pth``, ``pyvenv.cfg``), wherever it lies."""
    lowered = name.lower()
    return lowered == GIT_ENTRY or _is_python_path(lowered)


def protection(relative: PurePath) -> Protection | None:
    """What keeps writes off ``relative`` (a path inside the project, relative to its
    root), or ``None`` for an ordinary project file. Pure: names only, no file system."""
    parts = relative.parts
    if parts[:1] and parts[0] in HARNESS_FOLDERS:
        return Protection.HARNESS_FOLDER
    lowered = [part.lower() for part in parts]
    if GIT_ENTRY in lowered:
        return Protection.GIT_ENTRY
    if lowered and _is_python_path(lowered[-1]):
        return Protection.PYTHON_PATH
    return None


def write_refusal(relative: PurePath, shown: str, what: str = "path") -> str | None:
    """Why writing ``relative`` (a path inside the project, relative to its root) is
    refused, or ``None`` when it is an ordinary project file.

    ``shown`` is the path as the model wrote it; ``what`` names it (``path``,
    ``redirection target``…).
    """
    kind = protection(relative)
    if kind is None:
        return None
    return _reason(kind, relative, shown, what)


def refusal_at(
    root: Path, written: Path, resolved: Path, shown: str, what: str = "path", *,
    removing: bool = False,
) -> str | None:  # fmt: skip
    """Why writing the place the model named ``shown`` is refused, or ``None``.

    ``written`` is the path as written (made absolute, not resolved), ``resolved`` where
    the kernel would open it (links followed): a link named ``cfg`` to ``sub/.git/config``
    and ``sub/.git`` linked to a folder are both caught. The harness's own folders are
    judged where the write lands; ``removing`` (the write only deletes) spares a nested
    ``.git`` or a ``.pth`` file (deleting one is how a nested repository becomes a plain
    folder). Both places outside ``root`` are the caller's to refuse.
    """
    if resolved.is_relative_to(root):
        landing = resolved.relative_to(root)
        if protection(landing) is Protection.HARNESS_FOLDER:
            return _reason(Protection.HARNESS_FOLDER, landing, shown, what)
    if removing:
        return None
    for place in (Path(os.path.normpath(written)), resolved):
        if place.is_relative_to(root):
            reason = write_refusal(place.relative_to(root), shown, what)
            if reason:
                return reason
    return None


def _is_python_path(lowered: str) -> bool:
    return lowered.endswith(PYTHON_PATH_SUFFIX) or lowered == VENV_CONFIG


def _reason(kind: Protection, relative: PurePath, shown: str, what: str) -> str:
    if kind is Protection.HARNESS_FOLDER:
        return (
            f"the {what} {shown} is inside {relative.parts[0]}/, which belongs to the "
            "harness; write project files only (the harness commits them)"
        )
    if kind is Protection.GIT_ENTRY:
        return (
            f"the {what} {shown} is inside a .git folder or is a .git file (a nested "
            "repository or a worktree pointer); the harness's git and sandbox read these "
            "and git would run the programs they name, so write project files only (if the "
            "task needs another repository, say so in your handoff)"
        )
    return (
        f"the {what} {shown} is a Python path file (*.pth or pyvenv.cfg); the harness's "
        "git and sandbox read these and they change where Python and the sandbox load "
        "code from, so write project files only (name a package the project needs in "
        "your handoff)"
    )

"""Files the harness reads, anywhere in the project: the model may read them, not write them.

* A ``.git`` folder or file at any depth (the top repository, a nested one, a worktree or
  submodule pointer ``gitdir: …``): the harness's git reads it, and a nested repository's
  configuration and attributes name filters, hooks and drivers git would run (issue 14:
  ``echo … > vendor/lib/.git/config`` ran a ``filter.x.clean`` program on the host).
* ``*.pth`` files and ``pyvenv.cfg``: they steer Python's import path, and they steered the
  sandbox's read-only mounts (issue 14: a ``.pth`` naming ``HARNESS_HOME`` showed the
  decision key to the next sandbox).

Names are compared case-insensitively (``.GIT`` is ``.git`` on a case-insensitive file
system); ``x.pth.txt`` or a folder ``git/`` are ordinary files. The Bash policy
(:mod:`.paths`) and the file tools' hook (:mod:`agent.core.hooks`) both ask
:func:`write_refusal`, so a path refused to one is refused to the other.
"""

from __future__ import annotations

from pathlib import PurePath

GIT_ENTRY = ".git"
PYTHON_PATH_SUFFIX = ".pth"
VENV_CONFIG = "pyvenv.cfg"


def write_refusal(relative: PurePath, shown: str, what: str = "path") -> str | None:
    """Why writing ``relative`` (a path inside the project, relative to its root) is
    refused, or ``None`` when it is an ordinary project file.

    ``shown`` is the path as the model wrote it; ``what`` names it (``path``,
    ``redirection target``…).
    """
    parts = [part.lower() for part in relative.parts]
    if GIT_ENTRY in parts:
        return (
            f"the {what} {shown} is inside a .git folder or is a .git file (a nested "
            "repository or a worktree pointer); the harness's git and sandbox read these "
            "and git would run the programs they name, so write project files only (if the "
            "task needs another repository, say so in your handoff)"
        )
    name = parts[-1] if parts else ""
    if name.endswith(PYTHON_PATH_SUFFIX) or name == VENV_CONFIG:
        return (
            f"the {what} {shown} is a Python path file (*.pth or pyvenv.cfg); the harness's "
            "git and sandbox read these and they change where Python and the sandbox load "
            "code from, so write project files only (name a package the project needs in "
            "your handoff)"
        )
    return None

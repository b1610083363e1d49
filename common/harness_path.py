"""The folders of ``PATH`` where the harness looks up its own programs (git, bubblewrap).

Why: a person who starts the harness with the project's virtualenv active has the
project's ``.venv/bin`` on ``PATH``, and a session may write there (it installs
packages). A ``git`` it planted in that folder would be found by the next harness process
that looks git up (an agent resumed or woken, a TUI opened again, ``harness`` itself),
and ``git --exec-path`` runs before any jail: the model's program, as the person, outside
every sandbox. So a folder inside a git work tree or a virtualenv, or a relative one (the
working folder may be the project), is never searched for the harness's own programs. The
sessions keep the project's own ``PATH`` (:mod:`common.project_env`): this is only about
what the harness runs.
"""

from __future__ import annotations

import os
from pathlib import Path


def harness_path(path: str) -> str:
    """``path`` (a ``PATH`` value) without the folders a model could have written."""
    kept = [entry for entry in path.split(os.pathsep) if _trusted(entry)]
    return os.pathsep.join(dict.fromkeys(kept))


def _trusted(entry: str) -> bool:
    folder = Path(entry)
    if not entry or not folder.is_absolute():
        return False
    for place in (folder, *folder.parents):
        try:
            if (place / ".git").exists() or (place / "pyvenv.cfg").exists():
                return False
        except OSError:
            return False  # unreadable: not a place to take programs from
    return True

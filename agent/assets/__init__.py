"""The harness's data files (prompts, the demos, the eval cases), found as package data.

Why: the harness must run from an installed package, not only from a checkout, so
nothing is found through ``Path(__file__).parents[n]``. Everything here is read with
:func:`asset_path`, which resolves through :mod:`importlib.resources`.
"""

from __future__ import annotations

import shutil
from importlib.resources import files
from pathlib import Path

BYTE_CODE = shutil.ignore_patterns("__pycache__", "*.pyc")
"""For :func:`shutil.copytree`: Python's caches beside the data's ``.py`` files.

Why: they are never part of an asset, yet they appear there: ``pip install`` compiles
every ``.py`` it installs (the demo project's and the eval cases' too), and a test run
in a checkout writes them beside the sources."""


def asset_path(*parts: str) -> Path:
    """The file or folder ``parts`` under the harness's assets, as a real path.

    The package is always installed as files on disk (a checkout, or ``pip install``
    into a venv), never run from a zip, so its resources are real paths the CLI, the
    sandbox and ``git`` can be pointed at.
    """
    return Path(str(files(__name__).joinpath(*parts)))


def is_byte_code(path: Path) -> bool:
    """``path`` (relative to an asset folder) is one of Python's caches, not data."""
    return "__pycache__" in path.parts or path.suffix == ".pyc"

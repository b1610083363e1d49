"""Where the harness's own code is: a checkout, or the site-packages of an install.

Why one place: the sandbox keeps that folder out of every session
(:mod:`agent.sandbox.protected`), the wizard refuses it as a project, and a child
started with ``python -m agent...`` must find the packages from any working folder.
This is the one lookup by a file's own location that stays: it finds the code, not
data (the harness's data files are package data, :func:`agent.assets.asset_path`).
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Mapping
from pathlib import Path

CODE_ROOT = Path(__file__).resolve().parents[1]
"""The folder holding ``common/``, ``agent/`` and ``tui/``: the checkout, or the
site-packages folder ``pip install`` put them in."""


def site_folders() -> frozenset[Path]:
    """The folders this interpreter imports installed packages from."""
    folders = [*site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    return frozenset(Path(folder).resolve() for folder in folders)


def is_installed(root: Path = CODE_ROOT, sites: frozenset[Path] | None = None) -> bool:
    """The harness runs from an install (its packages sit in a site folder), not a checkout."""
    return root in (site_folders() if sites is None else sites)


def module_command(module: str, *args: str) -> list[str]:
    """``python -P -m MODULE ARGS``: a child that runs one of the harness's own modules.

    Why ``-P`` (Python 3.11+): ``python -m`` puts the working folder first on
    ``sys.path``, and the harness's children work in the project, the model's tree. A
    project holding ``agent/__init__.py`` and ``agent/cli.py`` (planted by a session, or
    just a project with a package of that name) was imported in place of the harness's:
    it ran as the agent, outside the sandbox, able to read the decision key and handed
    the credentials (tested). With ``-P`` the working folder is not searched; the
    packages come from the install or the checkout on ``PYTHONPATH``
    (:func:`with_code_importable`).
    """
    return [sys.executable, "-P", "-m", module, *args]


def with_code_importable(
    environ: Mapping[str, str], root: Path = CODE_ROOT, *, installed: bool | None = None
) -> dict[str, str]:
    """``environ`` for a child ``python -m agent...`` started from any folder.

    From a checkout the checkout goes first on ``PYTHONPATH`` (the child's working
    folder is not the checkout); from an install nothing is added, since every
    interpreter of that environment finds the packages already, and a
    ``PYTHONPATH`` naming site-packages would reach the child's own children.
    """
    result = dict(environ)
    if is_installed(root) if installed is None else installed:
        return result
    paths = [str(root), *filter(None, environ.get("PYTHONPATH", "").split(os.pathsep))]
    result["PYTHONPATH"] = os.pathsep.join(paths)
    return result

"""Files a session wrote that git ignores: never committed, never in the reviewed diff,
yet the harness's test gate runs with them.

Why: the model chooses what git ignores. A ``tests/.gitignore`` that names itself and
a ``conftest.py`` beside it, a ``sitecustomize.py`` in the project's ``.venv``, a
module under an ignored ``build/``: none of them reaches the commit or the diff a
person reviews at issue_closure, and every one of them runs when the harness runs the
project's tests (measured: a hidden conftest that marks every report passed turned a
broken suite into "2 passed", exit 0). Such a file is named instead: once in the log
and to the next session, and at issue_closure.

What counts as written is the file's inode change time (``st_ctime``), which the
model cannot set back (``touch -d`` and ``os.utime`` move ``mtime`` only, and change
``ctime`` to now). Folders that only hold caches a test gate never reads are left
out: ``__pycache__`` (the gate reads bytecode from a fresh ``PYTHONPYCACHEPREFIX``,
:func:`agent.core.gates.gates.run_tests`) and the caches of pytest, mypy and ruff.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from common.paths import WORKSPACE_ROOT_NAME
from common.workspace import git

GATE_CACHES = frozenset({b"__pycache__", b".pytest_cache", b".mypy_cache", b".ruff_cache"})
"""Folder names whose files the gate never runs (bytecode goes to a fresh prefix)."""

COARSE_CLOCK_NS = 50_000_000
"""The kernel stamps inodes from a coarse clock, up to a tick behind ``time.time_ns``
(measured: a link made right after the session's start had an older ctime)."""

BUDGET_S = 30.0
"""How long the look at the ignored files may take; the ones it did not come to are
named all the same (they could have been written)."""

REASON = (
    "git ignores it: it is not committed and not in the diff you review, "
    "yet the test gate ran with it"
)


def ignored_files(project: Path) -> list[bytes]:
    """Every file git ignores in the work tree, one by one (git's bytes).

    The harness's own workspace is not the model's and is left out.
    """
    out = git.git_bytes(
        project, "status", "--porcelain=v1", "-z", "--ignored=traditional", "--untracked-files=all"
    )
    workspace = WORKSPACE_ROOT_NAME.encode() + b"/"
    return [
        entry[3:]
        for entry in git.split_nul(out)
        if entry.startswith(b"!! ") and not entry[3:].startswith(workspace)
    ]


def written_since(project: Path, since_ns: int, budget_s: float = BUDGET_S) -> list[bytes]:
    """Ignored files (outside the gate's caches) whose inode changed at or after ``since_ns``.

    ``lstat`` only: a link is judged as a link and never followed; git lists no FIFO or
    socket, and nothing here opens a file. After ``budget_s`` the rest is named unlooked.
    """
    deadline = time.monotonic() + budget_s
    found: list[bytes] = []
    for raw in ignored_files(project):
        if GATE_CACHES.intersection(raw.split(b"/")[:-1]):
            continue
        if time.monotonic() > deadline:
            found.append(raw)
            continue
        try:
            changed = (project / os.fsdecode(raw)).lstat().st_ctime_ns
        except OSError:
            continue  # gone since git listed it: nothing left to run
        if changed >= since_ns - COARSE_CLOCK_NS:
            found.append(raw)
    return found


RUN_SUFFIXES = frozenset(
    {".py", ".pyc", ".pyo", ".pth", ".so", ".pyd", ".sh", ".js", ".mjs", ".cjs", ".ts", ".pl"}
)
"""Suffixes of files a test run imports or executes."""
RUN_NAMES = frozenset(
    {
        "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "conftest.py", ".env",
        "package.json", ".npmrc", ".noserc", "Makefile", "pyvenv.cfg", ".pythonrc",
    }
)  # fmt: skip
"""Files that steer a test runner or an interpreter by their name alone."""
ENVIRONMENT_REASON = "written under the project's environment, which the gates run"
RUNS_REASON = "git ignores it, and the gates run it or read it as configuration"


def runs_in_gates(project: Path, raw: bytes, env_places: frozenset[bytes]) -> str | None:
    """Why the ignored file ``raw`` a session wrote matters enough that a person must see
    it before the issue closes (``None``: it is only named).

    Why: an ignored file is in no diff, yet the gates run with it. Data, logs and
    coverage files cannot change a verdict; code, a runner's configuration, a link and
    anything under the project's environment can (a ``sitecustomize.py`` in ``.venv``, a
    ``conftest.py`` under a self-ignoring folder, a replaced ``.venv/bin/python``).
    ``env_places``: the environment's folders, relative to the work tree (``.venv``).
    """
    if any(raw == place or raw.startswith(place + b"/") for place in env_places):
        return ENVIRONMENT_REASON
    name = raw.rsplit(b"/", 1)[-1].decode("utf-8", "surrogateescape")
    if name in RUN_NAMES or Path(name).suffix in RUN_SUFFIXES:
        return RUNS_REASON
    try:
        info = (project / os.fsdecode(raw)).lstat()
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode) or info.st_mode & 0o111:
        return RUNS_REASON
    return None

"""Fresh work trees: a test run there sees only the committed content and the environment.

Why: a slot's baseline is a full run of the project's tests in a worktree git has just
made, and with N slots opened at once it was N runs of the same commit, on the path
to every issue's first session (measured: 2.3-2.5 s for three at once against 0.7 s for
one, on a two-line suite). A test's outcome is a function of what it can read and run:
the files in its work tree, its environment and its command. Two work trees hold the
same files when their content (:func:`common.workspace.git.worktree_fingerprint`, every
tracked and untracked file not ignored) is the same *and* nothing else is in them: no
ignored file the other lacks, no nested repository the fingerprint leaves out, no file
too big to be hashed. Such a tree is *fresh*; the runs of fresh trees of one content are
interchangeable (:class:`agent.core.gates.gate_runs.GateRunner` shares them).

What may lie in a fresh tree besides its content, because a run cannot tell it apart:
the project's environment (its ``.venv``, the very folder a slot links in, read-only),
the harness's own workspace (``.claude-agent/``, in the project's work tree only: in a
slot's worktree a folder of that name would be the model's), ``__pycache__`` folders
holding only bytecode (each run reads bytecode from a fresh ``PYTHONPYCACHEPREFIX``,
:func:`agent.core.gates.gates.run_tests`) and a pytest cache that records no failures and no
``--stepwise`` position (the only records that change which tests ``--lf``/``--sw``
run). Anything else ignored (a ``.env``, a built extension, data a test reads) makes the
tree not fresh, and its runs are its own.

Not covered, as for the gates' cache of one work tree: a test whose outcome depends on
its folder's absolute path, or on an environment changed during the run. The final test
run on the feature branch, in the project's own work tree, is never a shared one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from common.workspace import git

PYCACHE = "__pycache__"
PYTEST_CACHE = ".pytest_cache"
PYTEST_NEUTRAL = frozenset({"README.md", ".gitignore", "CACHEDIR.TAG", "v/cache/nodeids"})
"""What pytest writes in its cache that changes no test's outcome. Not in it: the
records of the last failures and of a ``--stepwise`` position (``--lf``, ``--sw`` run
other tests with them), nor anything pytest does not write there."""


@dataclass(frozen=True)
class Harmless:
    """What may lie ignored in a fresh work tree, and what must be there."""

    project: Path
    """The project's own work tree: where the environment folders lie."""
    env_folders: tuple[Path, ...] = ()
    """The project's environment folders inside it (a project venv): in every fresh tree
    at the same place, the folder itself or a link to it (a tree without it runs the
    tests without their interpreter)."""
    workspace: Path | None = None
    """The harness's workspace of this run (``PROJECT/.claude-agent/<spec>``)."""

    def env_places(self) -> list[tuple[Path, Path]]:
        """Each environment folder's place in a work tree, and the folder."""
        return [(folder.relative_to(self.project), folder) for folder in self.env_folders]


def is_fresh(work_tree: Path, harmless: Harmless) -> bool:
    """Whether ``work_tree`` holds its content and nothing a test could read besides.

    Clean (nothing changed nor untracked: the fingerprint leaves a too-big file out,
    and an untracked nested repository), no submodule (its checkout is not in the
    fingerprint), the environment in its place, and every ignored entry harmless
    (:func:`unexplained`).
    """
    for place, folder in harmless.env_places():
        if (work_tree / place).resolve() != folder.resolve():
            return False
    if git.changed_paths(work_tree) or git.gitlinks(work_tree):
        return False
    return not unexplained(work_tree, ignored_entries(work_tree), harmless)


def ignored_entries(work_tree: Path) -> list[str]:
    """The ignored paths of ``work_tree``, a wholly ignored folder as one (``name/``)."""
    out = git.git_bytes(
        work_tree, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z"
    )
    return [entry.decode("utf-8", "surrogateescape") for entry in git.split_nul(out)]


def unexplained(work_tree: Path, entries: Iterable[str], harmless: Harmless) -> list[str]:
    """The ignored ``entries`` of ``work_tree`` that a test could read and another fresh
    tree would lack (empty: the tree is fresh as far as its ignored files go)."""
    return [entry for entry in entries if not _harmless(work_tree, entry, harmless)]


def _harmless(work_tree: Path, entry: str, harmless: Harmless) -> bool:
    relative = Path(entry.rstrip("/"))
    path = work_tree / relative
    if path.is_symlink():
        return _is_environment(relative, path, harmless)
    if relative.name == PYCACHE:
        return _holds_only(path, lambda name: name.endswith(".pyc"))
    if relative == Path(PYTEST_CACHE):
        return _holds_only(path, lambda name: name in PYTEST_NEUTRAL)
    if _is_environment(relative, path, harmless):
        return True
    workspace = harmless.workspace
    # The harness's own workspace, or the folder that holds it: only where it really is.
    return workspace is not None and workspace.resolve().is_relative_to(path.resolve())


def _is_environment(relative: Path, path: Path, harmless: Harmless) -> bool:
    """Whether ``path`` is the project's environment where the project has it (a slot's
    link points there)."""
    resolved = path.resolve()
    return any(
        relative == place and resolved == folder.resolve()
        for place, folder in harmless.env_places()
    )


def _holds_only(folder: Path, allowed: Callable[[str], bool]) -> bool:
    """Whether ``folder`` (a real one) holds only files whose path in it is ``allowed``:
    a cache, not data a test could read."""
    if not folder.is_dir():
        return False
    for path in folder.rglob("*"):
        if path.is_symlink() or (
            not path.is_dir() and not allowed(path.relative_to(folder).as_posix())
        ):
            return False
    return True

"""The project's environment in a worktree the harness made: a slot's, or a scratch copy.

Apart from :mod:`agent.core.slots` because both a slot's worktree and the scratch copy
its baseline is measured in (:mod:`agent.core.slot_baselines`) need it.
"""

from __future__ import annotations

from pathlib import Path

from common.workspace import git


def link_environment(project: Path, tree: Path, folders: tuple[Path, ...]) -> None:
    """Link the project's environment (its ``.venv``) into the worktree at the same place.

    Why: git ignores it, so no worktree has it, and the project's test command names it
    (``.venv/bin/python -m pytest``). The link points at the project's own folder, which
    a slot's sandbox shows read-only. Only a path git ignores in the worktree is linked:
    a link git would see could be committed.
    """
    for folder in folders:
        relative = folder.relative_to(project)
        link = tree / relative
        if link.is_symlink() or link.exists():
            continue
        # A trailing slash: a pattern for folders (``.venv/``) matches a path not made yet.
        if git.git(tree, "check-ignore", f"{relative}/", check=False):
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(folder, target_is_directory=True)

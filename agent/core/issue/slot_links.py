"""The project's environment in a worktree the harness made: a slot's, or a scratch copy.

Apart from :mod:`agent.core.issue.slots` because both a slot's worktree and the scratch copy
its baseline is measured in (:mod:`agent.core.issue.slot_baselines`) need it.
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


def moved(tree: Path, places: tuple[Path, ...], root: str | None) -> list[str]:
    """Each of the environment's ``places`` in ``tree`` (relative: ``.venv``) that no longer
    leads to the recorded environment ``root`` (the folder it resolved to at
    project_verification), as a line a person reads.

    Why: a session can replace the ``.venv`` link a slot's worktree holds, or the demo's
    link into the environment cache, or the project's own ``.venv``, with an interpreter
    of its own (a script printing "99 passed"). The gates run the recorded interpreter
    by its path, so such a replacement cannot answer for them; still, a person must
    know before the issue closes.
    """
    if root is None:
        return []
    found: list[str] = []
    for place in places:
        path = tree / place
        try:
            resolved = path.resolve()
        except OSError:
            resolved = path
        if resolved != Path(root):
            found.append(
                f"{place}: the project's environment here no longer leads to the recorded "
                f"one ({root}); the gates ran the recorded one"
            )
    return found

"""Path arguments and redirection targets must stay inside the project.

A path is resolved the way the kernel would open it (symlinks followed) against every
folder the command may be in, and a glob is expanded the way bash would, so
``src/*`` with a symlink to ``/etc`` inside is caught. Writes also stay out of
``.git/`` (hooks, config, refs) and the harness's ``.claude-agent/`` workspaces, and out
of the files the harness reads anywhere in the project (:mod:`.protected`: nested
``.git``, ``*.pth``, ``pyvenv.cfg``), checked both as written and as resolved.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path

from agent.core.policy.context import Denied
from agent.core.policy.protected import write_refusal
from agent.core.policy.syntax import Word
from common.paths import WORKSPACE_ROOT_NAME

#: Devices any command may read or write.
SAFE_DEVICES = frozenset(
    {"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/urandom",
     "/dev/random"}
)  # fmt: skip
#: Folders of the project that belong to the harness: the model never writes there.
HARNESS_FOLDERS = (".git", WORKSPACE_ROOT_NAME)
_NETWORK_DEVICES = ("/dev/tcp/", "/dev/udp/")


def check_path(
    word: Word,
    root: Path,
    cwds: Iterable[Path],
    *,
    write: bool,
    what: str = "path",
    removing: bool = False,
) -> None:
    """Raise :class:`Denied` unless ``word`` names a place inside ``root``.

    ``what`` names the argument in the message (``path``, ``redirection target``…).
    ``removing``: the write only deletes (``rm``), which a nested ``.git`` or a ``.pth``
    file may suffer (deleting one is how a nested repository becomes a plain folder);
    the harness's own folders stay off limits.
    """
    if word.fd_path:
        return
    if word.text is None:
        raise Denied(
            f"the {what} {word.raw} is built from a variable or substitution the harness "
            "cannot check; write the path out literally"
        )
    text = word.text
    if text in SAFE_DEVICES:
        return
    if text.startswith(_NETWORK_DEVICES):
        raise Denied(
            f"{text} opens a network connection; the model's commands have no network access"
        )
    if word.braces:
        raise Denied(
            f"the {what} {word.raw} uses a brace expansion; write each path out separately"
        )
    for cwd in cwds:
        for candidate in _candidates(text, cwd, word.glob):
            resolved = (cwd / candidate).resolve()
            if not resolved.is_relative_to(root):
                raise Denied(
                    f"the {what} {word.raw} is outside the project {root}; "
                    "work with files inside the project only"
                )
            if write:
                first = resolved.relative_to(root).parts[:1]
                if first and first[0] in HARNESS_FOLDERS:
                    raise Denied(
                        f"the {what} {word.raw} is inside {first[0]}/, which belongs to the "
                        "harness; write project files only (the harness commits them)"
                    )
                if not removing:
                    _check_protected(word, root, cwd / candidate, resolved, what)


def _check_protected(word: Word, root: Path, written: Path, resolved: Path, what: str) -> None:
    """The files the harness reads, by the name the model wrote and the place it reaches
    (a link named ``cfg`` to ``sub/.git/config``, or ``sub/.git`` linked to a folder)."""
    lexical = Path(os.path.normpath(written))
    for place in (lexical, resolved):
        if place.is_relative_to(root):
            reason = write_refusal(place.relative_to(root), word.raw, what)
            if reason:
                raise Denied(reason)


def resolve_in(text: str, cwd: Path) -> Path:
    """``text`` as a folder reached from ``cwd`` (for ``cd``)."""
    return (cwd / text).resolve()


def _candidates(text: str, cwd: Path, is_glob: bool) -> list[str]:
    """The names bash would pass: the glob's matches, or the text itself."""
    if not is_glob:
        return [text]
    head = Path(text).parts
    if any(part.startswith(".") and set(part[1:]) & set("*?[") for part in head):
        raise Denied(
            f"the pattern {text} could match '..'; name the folders without a hidden-file glob"
        )
    # glob.glob, not Path.glob: the pattern may be absolute (``/etc/*``).
    matches = glob.glob(text, root_dir=cwd)  # noqa: PTH207
    return [text, *matches]

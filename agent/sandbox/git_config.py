"""The repository's git configuration as the sandbox shows it: what git needs, no secret.

Why: the sandbox shows ``.git`` read-only so that the model's ``git log``, ``diff`` and
``status`` work, and ``.git/config`` is where people's tools put their credentials: a
remote cloned as ``https://oauth2:TOKEN@host/...``, actions/checkout's
``http.https://github.com/.extraheader = AUTHORIZATION: basic …``, a
``url.…insteadOf`` with a token, an ``include`` of a file elsewhere. Shown as it is,
``git remote -v`` printed the token to the model (measured). A copy holding only what
git needs to read the repository is bound over it: ``core`` and ``extensions`` (the
repository's format, its object hash, worktree settings) and each remote's name, URL
without its user information, and refspecs, so ``origin/main`` still means something;
the branches' upstreams too. Everything else stays outside.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from common.errors import GitError
from common.workspace import git

KEPT_SECTIONS = frozenset({"core", "extensions"})
"""Sections kept whole: how git reads this repository."""
KEPT_KEYS = frozenset(
    {"remote.url", "remote.pushurl", "remote.fetch", "branch.remote", "branch.merge"}
)
"""Keys of subsections kept (``section.key``, the subsection's name left out)."""
CONFIG_NAMES = ("config", "config.worktree")
"""The files of a git folder that configure it."""


def entries(repo: Path, config: Path) -> list[tuple[str, str]]:
    """``config``'s entries as git reads them (no ``include`` followed), in file order.

    Raises:
        GitError: git cannot read it.
    """
    out = git.git_bytes(repo, "config", "--file", str(config), "--list", "--null")
    found: list[tuple[str, str]] = []
    for record in out.split(b"\0"):
        if not record:
            continue
        key, _, value = record.decode("utf-8", errors="replace").partition("\n")
        found.append((key, value))
    return found


def kept(pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """The entries the sandbox may show, URLs without their user information."""
    shown: list[tuple[str, str]] = []
    for key, value in pairs:
        section, _, rest = key.partition(".")
        subsection, _, name = rest.rpartition(".")
        if section in KEPT_SECTIONS and not subsection:
            shown.append((key, value))
        elif subsection and f"{section}.{name}" in KEPT_KEYS:
            shown.append((key, without_credentials(value) if name.endswith("url") else value))
    return shown


def without_credentials(url: str) -> str:
    """``url`` without ``user:password@`` (an scp-like ``git@host:path`` names no secret
    and stays as it is)."""
    parts = urlsplit(url)
    if not parts.scheme or "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def render(pairs: Iterable[tuple[str, str]]) -> str:
    """The entries in git's configuration syntax (values quoted and escaped)."""
    lines: list[str] = []
    current: str | None = None
    for key, value in pairs:
        section, _, rest = key.partition(".")
        subsection, _, name = rest.rpartition(".")
        header = f'[{section} "{_escaped(subsection)}"]' if subsection else f"[{section}]"
        if header != current:
            lines.append(header)
            current = header
        lines.append(f'\t{name} = "{_escaped(value)}"')
    return "\n".join(lines) + "\n"


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")


def shown_configs(
    repo: Path, git_folders: Iterable[Path], into: Path
) -> tuple[tuple[Path, Path], ...]:
    """A shown copy (:func:`kept`) of every configuration file of ``git_folders``, written
    into ``into``: (the copy, the file it covers) pairs to bind read-only over the real
    ones. A file git cannot read is covered by an empty one.
    """
    pairs: list[tuple[Path, Path]] = []
    for folder in git_folders:
        if not folder.is_dir():
            continue
        for name in CONFIG_NAMES:
            real = folder / name
            if not real.is_file() or real.is_symlink():
                continue  # a link is the person's own doing; bwrap would follow it
            try:
                text = render(kept(entries(repo, real)))
            except GitError:
                text = ""
            digest = hashlib.sha256(str(real).encode()).hexdigest()[:12]
            copy = into / f"git-config-{digest}"
            copy.write_text(text)
            pairs.append((copy, real))
    return tuple(pairs)

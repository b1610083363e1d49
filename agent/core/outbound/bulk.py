"""Many changed files held whole, by folder: what a person can take in at a glance.

Why: a session that wrote 6,000 small files cost one agent thread minutes after the
session (the review read and scanned each) and would have asked a person about each
one, or committed them all unseen. Above ``limits.changed_files`` the session's files
are not reviewed one by one: they are held for a person in a few folder entries
(:func:`held`), each with one finding naming its count and a preview of its names.
Approving an entry commits exactly the files it stands for (its ``files``), and the
branch's review before the push still reads each of them; excluding it keeps them all
out. The same grouping holds the files a review had no time left for.

Pure: names in, entries out; nothing here touches the file system.
"""

from __future__ import annotations

from collections import defaultdict

from common.schemas.outbound import Finding, FindingKind, FlaggedFile
from common.untrusted_text import printable_line

MAX_GROUPS = 12
"""At most this many entries: a summary a person reads, not a listing."""
SHOWN_NAMES = 8
"""Names in an entry's preview."""
TOP = "./"
"""The label of the files at the project's top."""


def label_of(path: str, depth: int) -> str:
    """The folder of ``path`` that groups it at ``depth`` (``a/b/`` for ``a/b/c/d.txt``
    at depth 2); a file in a shallower folder is grouped by that folder."""
    parts = path.split("/")[:-1][:depth]
    return "/".join(parts) + "/" if parts else TOP


def groups(paths: list[str], max_groups: int = MAX_GROUPS) -> dict[str, list[str]]:
    """``paths`` by folder, as deep as fits in ``max_groups`` entries (at least one level).

    A folder is split into its subfolders while the total stays within ``max_groups``,
    the largest first; the files directly in a split folder keep its label.
    """
    by_label: dict[str, list[str]] = _by(paths, {path: 1 for path in paths})
    depth = dict.fromkeys(paths, 1)
    while True:
        splittable = [
            (len(members), label)
            for label, members in by_label.items()
            if len({label_of(p, depth[p] + 1) for p in members}) > 1
        ]
        if not splittable:
            return dict(sorted(by_label.items()))
        _count, label = max(splittable)
        members = by_label[label]
        deeper = {p: depth[p] + 1 for p in members}
        parts = _by(members, deeper)
        if len(by_label) - 1 + len(parts) > max_groups:
            return dict(sorted(by_label.items()))
        del by_label[label]
        by_label.update(parts)
        depth.update(deeper)


def _by(paths: list[str], depth: dict[str, int]) -> dict[str, list[str]]:
    found: defaultdict[str, list[str]] = defaultdict(list)
    for path in sorted(paths):
        found[label_of(path, depth[path])].append(path)
    return dict(found)


def held(paths: list[str], kind: FindingKind, why: str) -> list[FlaggedFile]:
    """``paths`` as folder entries, each with one finding: its count, where, and ``why``
    (the harness's words: why they were not reviewed one by one)."""
    found = groups(paths)
    return [entry(label, members, kind, why) for label, members in found.items()]


def entry(label: str, members: list[str], kind: FindingKind, why: str) -> FlaggedFile:
    """One folder entry: ``label`` standing for ``members``."""
    reason = _head(label, len(members)) + why
    return FlaggedFile(
        path=label,
        findings=[Finding(kind=kind, reason=reason)],
        preview=preview(members),
        files=members,
    )


def _head(label: str, count: int) -> str:
    where = "at the project's top" if label == TOP else f"in {printable_line(label)}"
    return f"{count:,} file(s) {where}: "


def preview(members: list[str]) -> str:
    """The first names, then how many more (escaped: the model chose them)."""
    shown = [printable_line(name) for name in members[:SHOWN_NAMES]]
    more = len(members) - len(shown)
    return "\n".join([*shown, *([f"… and {more:,} more"] if more else [])])


def is_folder_entry(item: FlaggedFile) -> bool:
    """Whether ``item`` stands for a folder of files (its ``files``), not one file."""
    return item.path.endswith("/")


def recounted(item: FlaggedFile, members: list[str]) -> FlaggedFile:
    """``item`` standing for ``members`` now (some were committed or removed since)."""
    finding = item.findings[0]
    why = finding.reason.removeprefix(_head(item.path, len(item.files)))
    return entry(item.path, members, finding.kind, why)

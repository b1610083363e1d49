"""A checkpoint's diff as a person reviews it: file by file, escaped, never cut silently.

The diff is the model's code: every line is escaped (:mod:`common.untrusted_text`), so
nothing in it can act on a terminal, and its file names are one-line values. The agent
stores at most a reviewable size of it; where it cut, the person is told so and given
the git command that shows the whole (:func:`cut_note`). The lines to read whole (very
long, or padded with blanks: :mod:`common.workspace.long_lines`) are said in the
harness's words wherever the diff is shown (:attr:`ReviewDiff.long_lines`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from common.schemas.checkpoint import Checkpoint
from common.schemas.long_lines import LongLines
from common.untrusted_text import printable, printable_line
from common.workspace import long_lines
from common.workspace.kinds import kind_of

#: The lines that start a file's section: a plain diff's, and a conflicted merge's (combined).
FILE_HEADERS = ("diff --git ", "diff --cc ", "diff --combined ")

#: How many lines of one file's diff make one page in a viewer (a longer file is split).
PAGE_LINES = 200


@dataclass(frozen=True)
class FileDiff:
    """One file's part of a unified diff."""

    path: str
    """The file's name, escaped to one line."""
    text: str
    """Its ``diff --git`` section (header included), escaped, lines kept."""
    added: int
    removed: int

    def heading(self) -> str:
        """``textkit/slug.py (+6 −0)``."""
        return f"{self.path} (+{self.added} −{self.removed})"

    def pages(self, page_lines: int = PAGE_LINES) -> list[str]:
        """The section in pages of at most ``page_lines`` lines (one page when short)."""
        lines = self.text.splitlines()
        if len(lines) <= page_lines:
            return [self.text]
        return ["\n".join(lines[at : at + page_lines]) for at in range(0, len(lines), page_lines)]


@dataclass(frozen=True)
class ReviewDiff:
    """What a checkpoint offers to review as a diff."""

    stat: str
    """``git diff --stat``'s summary line, escaped."""
    files: list[FileDiff]
    cut: str | None
    """Where the stored diff was cut, and how to see the whole; ``None`` when whole."""
    long_lines: LongLines = field(default_factory=LongLines)
    """The lines to read whole: the checkpoint's count, else counted on the stored text."""

    def flags(self) -> list[str]:
        """The long lines in the harness's words (empty: none)."""
        return long_lines.flag_lines(self.long_lines)


def split_files(diff: str) -> list[FileDiff]:
    """``diff`` (``git diff`` output) split at each file's header, escaped: ``diff --git``,
    or ``diff --cc`` in the combined diff of a conflicted merge (merge_conflict).

    Text before the first header (none from git) is kept as a section of its own, so
    nothing of the diff is dropped.
    """
    sections: list[list[str]] = []
    for line in diff.splitlines():
        if line.startswith(FILE_HEADERS) or not sections:
            sections.append([])
        sections[-1].append(line)
    return [_file_diff(lines) for lines in sections if any(lines)]


def _file_diff(lines: list[str]) -> FileDiff:
    added = sum(1 for line in lines if line.startswith("+") and not line.startswith("+++ "))
    removed = sum(1 for line in lines if line.startswith("-") and not line.startswith("--- "))
    return FileDiff(
        path=printable_line(_path(lines)),
        text=printable("\n".join(lines)),
        added=added,
        removed=removed,
    )


def _path(lines: list[str]) -> str:
    """The file's new name (``+++ b/…``), else its old one (a deletion), else the header's."""
    for prefix in ("+++ b/", "--- a/"):
        for line in lines:
            if line.startswith(prefix):
                return line[len(prefix) :]
    header = lines[0]
    if header.startswith("diff --git a/") and " b/" in header:
        return header.rsplit(" b/", 1)[1]
    for combined in FILE_HEADERS[1:]:
        if header.startswith(combined):
            return header.removeprefix(combined)
    return "(text before the first file)"


def cut_note(cut_at: int | None, whole: str) -> str | None:
    """Where the stored diff was cut, and ``whole``: the git command that shows it all."""
    if cut_at is None:
        return None
    return printable_line(
        f"the diff is cut at {cut_at} characters here; see the whole in the project with: {whole}"
    )


def review_diff(checkpoint: Checkpoint) -> ReviewDiff | None:
    """The checkpoint's diff, if its type carries one (issue_closure and enrichment_scope
    always; regression_approval and mr_review when written by a harness that adds it)."""
    carried = kind_of(checkpoint).diff(checkpoint)
    if carried is None:
        return None
    counted = carried.long_lines
    return ReviewDiff(
        stat=printable_line(_last_line(carried.stat)),
        files=split_files(carried.text),
        cut=cut_note(carried.cut_at, carried.whole),
        long_lines=counted if counted is not None else long_lines.find(carried.text),
    )


def flag_lines(checkpoint: Checkpoint) -> list[str]:
    """The checkpoint's lines to read whole, in the harness's words (empty: none, or no
    diff): for ``harness checkpoint`` and the agent's log."""
    review = review_diff(checkpoint)
    return review.flags() if review is not None else []


def diff_lines(checkpoint: Checkpoint) -> list[str]:
    """The unified diff for ``harness checkpoint --full``: escaped, with a line per file,
    the lines to read whole and, where it was cut, the note saying so (nothing for a
    checkpoint without one)."""
    review = review_diff(checkpoint)
    return [] if review is None else review_lines(review)


def review_lines(review: ReviewDiff) -> list[str]:
    """``review`` as text lines: the stat, the flags, each file under a line naming it,
    the cut (what ``harness checkpoint --full`` prints and a pager is handed)."""
    out = [f"DIFF ({review.stat or 'no changes'}):", *review.flags()]
    if not review.files:
        out.append("  (empty)")
    for number, item in enumerate(review.files, start=1):
        out += ["", f"--- file {number}/{len(review.files)}: {item.heading()}", item.text]
    if review.cut is not None:
        out += ["", f"CUT: {review.cut}"]
    return out


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""

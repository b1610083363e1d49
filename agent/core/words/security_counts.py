"""Counting redactions in the workspace, for ``harness status``.

Rejected forgeries are counted by the audit (:func:`agent.core.policy.audit.record_forgery`).
"""

from __future__ import annotations

from common.atomic import locked, read_model_or_none, write_model
from common.paths import WorkspaceFiles
from common.schemas.security import SecurityCounts


def read(files: WorkspaceFiles) -> SecurityCounts:
    """The counts so far (zero when nothing was recorded)."""
    return read_model_or_none(files.security, SecurityCounts) or SecurityCounts()


def record_redactions(files: WorkspaceFiles, count: int) -> None:
    """Add ``count`` redactions (nothing is written for zero)."""
    if count <= 0 or not files.root.is_dir():
        return
    with locked(files.security.with_suffix(".lock")):
        counts = read(files)
        write_model(
            files.security, counts.model_copy(update={"redactions": counts.redactions + count})
        )

"""Choose the tracker a spec asks for."""

from __future__ import annotations

from agent.tracker.base import IssueTracker
from agent.tracker.file import FileTracker
from common.errors import TrackerError
from common.paths import WorkspaceFiles
from common.schemas.workspace import WorkspaceInfo


def make_tracker(info: WorkspaceInfo, files: WorkspaceFiles) -> IssueTracker:
    """File-only mode gets the JSON tracker; GitLab mode is not built yet.

    Raises:
        TrackerError: GitLab mode was asked for.
    """
    if info.spec.file_only_mode:
        return FileTracker(files.milestone)
    raise TrackerError(
        'GitLab mode is not available in this version; set "file_only_mode": true '
        "(or tick File-only mode) to track issues in local JSON files"
    )

"""Run by test_git_unreadable.py as an unprivileged uid: the session's changes, the
fingerprint and the commit on a project holding a file its user cannot read."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from agent.core.git import commits
from common.workspace import git


def main(project: Path) -> None:
    changes = commits.session_changes(project, set(), set())
    fingerprint = git.worktree_fingerprint(project)
    sha = commits.commit(project, changes.files, "feat(#1): ok")
    shown = git.git(project, "show", "--name-only", "--format=", sha).splitlines()
    print(
        json.dumps(
            {
                "uid": os.getuid(),
                "readable": os.access(project / "secret.txt", os.R_OK),
                "files": changes.files,
                "kept_out": [[k.path, k.reason] for k in changes.kept_out],
                "fingerprint": fingerprint,
                "committed": shown,
            }
        )
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""python-gitlab (and requests) are used by the GitLab tracker alone."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMPORT = re.compile(r"^\s*(?:import|from)\s+(gitlab|requests)\b", re.MULTILINE)


def test_only_the_gitlab_tracker_imports_python_gitlab() -> None:
    importers = sorted(
        str(path.relative_to(ROOT))
        for folder in ("agent", "common", "tui")
        for path in (ROOT / folder).rglob("*.py")
        if IMPORT.search(path.read_text())
    )
    assert importers == [
        "agent/tracker/gitlab/client.py",
    ]

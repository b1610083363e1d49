"""``harness demo``: copy the demo project into a fresh git repository and its spec beside it."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from agent.core import git
from common.errors import SpecError
from common.schemas.spec import LOCAL_MODEL, AgentSpec

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
SPEC_NAME = "textkit-helpers.md"
IGNORED = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc")


def prepare_demo(target: Path | None, auto_accept: bool) -> AgentSpec:
    """Lay out ``TARGET/textkit`` (a git repository on ``main``) and ``TARGET/textkit-helpers.md``.

    Raises:
        SpecError: ``target`` exists and is not empty.
    """
    root = Path(tempfile.mkdtemp(prefix="harness-demo-")) if target is None else target.absolute()
    if root.exists() and any(root.iterdir()):
        raise SpecError(f"demo folder {root} is not empty; choose a new one with --dir")
    project = root / "textkit"
    shutil.copytree(DEMO_DIR / "project", project, ignore=IGNORED)
    shutil.copyfile(DEMO_DIR / "spec.md", root / SPEC_NAME)
    git.git(project, "init", "--quiet", "-b", "main")
    git.git(project, "add", "--all")
    git.git(
        project,
        "-c",
        "user.name=coding-harness demo",
        "-c",
        "user.email=demo@localhost",
        "commit",
        "--quiet",
        "-m",
        "chore: textkit before the harness run",
    )
    return AgentSpec(
        spec_file=root / SPEC_NAME,
        project_dir=project,
        target_branch="main",
        file_only_mode=True,
        model=LOCAL_MODEL,
        playbook=DEMO_DIR / "playbook.json",
        auto_accept=auto_accept,
    )

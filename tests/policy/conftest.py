"""A small project for the command policy: sources, tests, a venv, a .git and an escape."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.policy import PolicyContext

TEST_COMMAND = ".venv/bin/python -m pytest -q"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """``tmp_path/project`` with ``src/escape`` a symlink to ``tmp_path/outside``."""
    root = tmp_path / "project"
    for folder in ("src", "tests", "mypkg", "scripts", ".venv/bin", ".git/hooks"):
        (root / folder).mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('app')\n")
    (root / "tests" / "test_app.py").write_text("def test_app():\n    pass\n")
    (root / "mypkg" / "__init__.py").write_text("")
    (root / "README.md").write_text("# project\n")
    (root / "package.json").write_text('{"scripts": {"test": "true"}}\n')
    (root / "scripts" / "check.sh").write_text("#!/bin/sh\nexit 0\n")
    python = root / ".venv" / "bin" / "python"
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (root / "src" / "escape").symlink_to(outside, target_is_directory=True)
    return root


@pytest.fixture
def context(project: Path) -> PolicyContext:
    return PolicyContext.for_project(project, test_command=TEST_COMMAND)

"""Fresh work trees: only the committed content and the environment, nothing a test could
read that another worktree of the same commit would lack (real git, real folders)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.gates.fresh_trees import Harmless, is_fresh, unexplained
from tests.core.runs import sh_git


def project(path: Path) -> Path:
    """A project with a committed file, its ``.venv`` and the harness's workspace ignored."""
    path.mkdir()
    sh_git(path, "init", "-q", "-b", "main")
    (path / ".gitignore").write_text(".venv\n.env\n__pycache__/\n.pytest_cache/\nbuild/\n")
    (path / "app.py").write_text("x = 1\n")
    sh_git(path, "add", ".gitignore", "app.py")
    sh_git(path, "commit", "-q", "-m", "x")
    (path / ".git" / "info" / "exclude").write_text(".claude-agent/\n")
    (path / ".venv" / "bin").mkdir(parents=True)
    (path / ".claude-agent" / "spec-1").mkdir(parents=True)
    return path


def harmless(root: Path) -> Harmless:
    return Harmless(root, (root / ".venv",), root / ".claude-agent" / "spec-1")


def slot(root: Path, name: str) -> Path:
    """A worktree of ``root``'s commit with the environment linked in, as a slot has."""
    tree = root.parent / name
    sh_git(root, "worktree", "add", "-q", "-b", name, str(tree), "main")
    (tree / ".venv").symlink_to(root / ".venv", target_is_directory=True)
    return tree


def test_the_project_and_a_slot_with_the_environment_only_are_fresh(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    assert is_fresh(root, harmless(root))
    assert is_fresh(slot(root, "s1"), harmless(root))


@pytest.mark.parametrize(
    "made",
    [
        ".env",  # ignored, and a test may read it
        "build/ext.so",  # a built extension, ignored
        "untracked.py",  # in the fingerprint, but a clean tree is asked for
        ".pytest_cache/v/cache/lastfailed",  # --lf would run other tests
        ".pytest_cache/v/cache/stepwise",  # so would --sw
        ".pytest_cache/data.json",  # not pytest's: data a test could read
        "__pycache__/data.json",  # not bytecode
    ],
)
def test_anything_else_a_run_could_see_makes_a_tree_not_fresh(tmp_path: Path, made: str) -> None:
    root = project(tmp_path / "p")
    path = root / made
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")
    assert not is_fresh(root, harmless(root))


def test_bytecode_and_a_pytest_cache_without_records_are_harmless(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\0")
    (root / ".pytest_cache" / "v" / "cache").mkdir(parents=True)
    (root / ".pytest_cache" / "v" / "cache" / "nodeids").write_text("[]\n")
    assert is_fresh(root, harmless(root))


def test_a_changed_tracked_file_makes_a_tree_not_fresh(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (root / "app.py").write_text("x = 2\n")
    assert not is_fresh(root, harmless(root))


def test_the_workspace_is_harmless_only_where_it_really_is(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    made = slot(root, "s1")
    (made / ".claude-agent").mkdir()  # in a slot, a folder of that name is the model's
    assert not is_fresh(made, harmless(root))

    # A link to the real one is not it either (git's jail refuses such a tree anyway).
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / ".claude-agent").symlink_to(root / ".claude-agent", target_is_directory=True)
    assert unexplained(linked, [".claude-agent/"], harmless(root)) == [".claude-agent/"]
    assert unexplained(root, [".claude-agent/"], harmless(root)) == []


def test_an_environment_link_elsewhere_is_not_the_environment(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    made = slot(root, "s1")
    (made / "build").symlink_to(root / ".venv", target_is_directory=True)
    assert not is_fresh(made, harmless(root))


def test_a_link_git_does_not_ignore_makes_a_slot_not_fresh(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    (root / ".gitignore").write_text(".venv/\n")  # folders only: the link is untracked
    sh_git(root, "commit", "-q", "-am", "folders only")
    assert not is_fresh(slot(root, "s1"), harmless(root))


def test_a_slot_without_its_environment_is_not_fresh(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    made = slot(root, "s1")
    (made / ".venv").unlink()  # as ``git clean -fdx`` leaves a reset worktree
    assert not is_fresh(made, harmless(root))
    (made / ".venv").symlink_to(tmp_path, target_is_directory=True)  # another folder
    assert not is_fresh(made, harmless(root))


def test_a_submodule_makes_a_tree_not_fresh(tmp_path: Path) -> None:
    root = project(tmp_path / "p")
    head = sh_git(root, "rev-parse", "HEAD")
    sh_git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},vendored")
    sh_git(root, "commit", "-q", "-m", "a submodule")
    assert not is_fresh(root, harmless(root))

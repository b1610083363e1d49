"""Where an agent's issue worktrees live: under the harness's home, one folder per workspace."""

from __future__ import annotations

from pathlib import Path

from common import paths


def test_worktrees_live_under_the_harness_home_never_in_the_project(tmp_path: Path) -> None:
    project = tmp_path / "project"
    workspace = paths.workspace_dir(project, tmp_path / "spec.md")

    area = paths.worktrees_dir(workspace)

    assert area.parent == paths.harness_home() / "worktrees"
    assert area.name.startswith(f"{workspace.name}-")
    assert not area.is_relative_to(project)


def test_two_projects_with_one_spec_get_folders_of_their_own(tmp_path: Path) -> None:
    spec = tmp_path / "spec.md"
    one = paths.worktrees_dir(paths.workspace_dir(tmp_path / "a", spec))
    two = paths.worktrees_dir(paths.workspace_dir(tmp_path / "b", spec))

    assert one != two
    assert paths.worktrees_dir(paths.workspace_dir(tmp_path / "a", spec)) == one

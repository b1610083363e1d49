"""The wizard as a newcomer meets it (issue 27, item 5): the browser follows a typed path,
a dirty repository is said when it is picked, the browser option names what it skips."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, Static

from tests.tui.helpers import make_app, wait_until
from tui.app import HarnessApp
from tui.screens.wizard.options import AdvancedStep, OptionsStep
from tui.screens.wizard.repo import RepoStep
from tui.screens.wizard.spec import SpecStep
from tui.widgets.folder_tree import FolderTree


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def projects(scratch: Path) -> Path:
    """``projects/app`` (a repository with one commit) and ``projects/app/src``, and
    ``projects/app-spec.md``."""
    root = scratch / "projects"
    repo = root / "app"
    (repo / "src").mkdir(parents=True)
    (repo / "README.md").write_text("# app\n")
    git(repo, "init", "--quiet", "-b", "main")
    git(repo, "add", "README.md")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    (root / "app-spec.md").write_text("# Feature: greet\n\nSay hello.\n")
    return root


def tree_root(app: HarnessApp) -> Path:
    return Path(app.screen.query_one("#tree", FolderTree).path)


def hint(app: HarnessApp) -> str:
    return str(app.screen.query_one("#hint", Static).content)


async def test_the_folder_browser_follows_the_typed_path(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects.parent, wizard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "the repository step")
        field = app.screen.query_one("#path", Input)
        field.value = ""
        await pilot.press(*f"{projects}/ap")  # a half-typed name: its folder is browsed
        await wait_until(pilot, lambda: tree_root(app) == projects, "the browser on projects/")
        await pilot.press(*"p/")
        await wait_until(pilot, lambda: tree_root(app) == projects / "app", "on projects/app")
        tree = app.screen.query_one("#tree", FolderTree)
        await wait_until(pilot, lambda: bool(tree.root.children), "its folders")
        assert [str(node.label) for node in tree.root.children] == ["src"]


async def test_back_at_the_repository_the_browser_shows_its_neighbours(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "the repository step")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SpecStep), "the spec step")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "back")
        tree = app.screen.query_one("#tree", FolderTree)
        await wait_until(pilot, lambda: bool(tree.root.children), "the folders")
        assert tree_root(app) == projects  # the chosen repository among its neighbours


async def test_a_dirty_repository_is_said_when_it_is_picked_and_before_the_start(
    projects: Path,
) -> None:
    repo = projects / "app"
    (repo / "README.md").write_text("# app, edited\n")
    (repo / "notes.txt").write_text("mine\n")
    app, _ = make_app([], start_dir=repo, wizard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "the repository step")
        said = "2 uncommitted changes (README.md, notes.txt): the agent never commits them"
        await wait_until(pilot, lambda: said in hint(app), "the uncommitted changes")
        assert hint(app).startswith("✓ git repository · ⚠ ")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SpecStep), "the spec step")
        app.screen.query_one("#path", Input).value = str(projects / "app-spec.md")
        await pilot.press("enter", "enter", "enter")  # spec, branch, options
        await wait_until(pilot, lambda: isinstance(app.screen, AdvancedStep), "the last step")
        summary = str(app.screen.query_one("#summary", Static).content)
    assert said in summary


async def test_a_clean_repository_says_nothing_more(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "the repository step")
        await wait_until(pilot, lambda: hint(app) == "✓ git repository", "the hint")

        def git_answered() -> bool:
            return all(job.is_finished for job in app.workers if job.group == "uncommitted")

        await wait_until(pilot, git_answered, "git's answer")
        assert hint(app) == "✓ git repository"


async def test_the_browser_option_names_the_browser_the_harness_uses(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, RepoStep), "the repository step")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SpecStep), "the spec step")
        app.screen.query_one("#path", Input).value = str(projects / "app-spec.md")
        await pilot.press("enter", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, OptionsStep), "the options")
        label = str(app.screen.query_one("#skip_puppeteer", Checkbox).label)
    assert "Puppeteer" not in label
    assert label == "Skip browser checks — no Playwright checks of a web UI"

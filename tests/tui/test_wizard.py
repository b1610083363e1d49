"""The setup wizard, driven with the keyboard against a temporary git repository."""

from __future__ import annotations

import asyncio
import subprocess
from functools import partial
from pathlib import Path
from typing import ClassVar

import pytest
from textual import events
from textual.app import ComposeResult
from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Tree

from agent.frontend.demo import prepare_demo
from agent.frontend.demo_spec import plays_demo
from common.schemas.spec import AgentSpec
from tests.tui.conftest import REPO_ROOT
from tests.tui.helpers import make_app, wait_until
from tui.app import HarnessApp
from tui.screens.wizard.base import WizardStep
from tui.screens.wizard.branch import BranchStep
from tui.screens.wizard.options import AdvancedStep, OptionsStep
from tui.screens.wizard.repo import RepoStep
from tui.screens.wizard.spec import SpecStep
from tui.screens.wizard.state import WizardDefaults, WizardState
from tui.services.settings import load_memory


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def projects(scratch: Path) -> Path:
    """``projects/`` (not a repository) holding ``app`` (a repository with main and dev) and
    ``notes`` (a plain folder), with ``app-spec.md`` beside them."""
    root = scratch / "projects"
    repo = root / "app"
    repo.mkdir(parents=True)
    (root / "notes").mkdir()
    (repo / "README.md").write_text("# app\n")
    git(repo, "init", "--quiet", "-b", "main")
    git(repo, "add", "README.md")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    git(repo, "branch", "dev")
    (root / "app-spec.md").write_text("# Feature: greet\n\nSay hello.\n")
    return root


def on_step(app: HarnessApp, step: type[WizardStep]) -> bool:
    """``step`` is on screen with its fields (a loaded machine may show a step a moment
    before its fields are composed)."""
    field = step.TYPED_FIELD
    return isinstance(app.screen, step) and (field is None or bool(app.screen.query(field)))


def error_text(app: HarnessApp) -> str:
    return str(app.screen.query_one("#step-error").render())


def path_value(app: HarnessApp) -> str:
    return app.screen.query_one("#path", Input).value


async def paste(app: HarnessApp, text: str) -> None:
    """A bracketed paste as the terminal delivers it: to whatever has the focus."""
    app.post_message(events.Paste(text))


def type_fast(app: HarnessApp, *keys: str) -> None:
    """Keys queued at once, none waiting for the screen to settle (a person typing on
    while a step changes on a loaded machine)."""
    for key in keys:
        character = key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


async def give_spec(pilot: Pilot[None], spec: Path) -> None:
    """On the spec step (which starts empty), paste ``spec``'s path."""
    app = pilot.app
    assert isinstance(app, HarnessApp)
    await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step")
    await paste(app, str(spec))
    await wait_until(pilot, lambda: path_value(app) == str(spec), "the pasted path")


async def test_the_wizard_starts_an_agent_with_what_was_chosen(projects: Path) -> None:
    app, link = make_app([], start_dir=projects, wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        await pilot.press("enter")  # projects/ itself is not a repository
        await wait_until(pilot, lambda: "not a git repository" in error_text(app), "the refusal")
        assert "no .git folder" in error_text(app)
        await pilot.press("down")  # projects/app
        await wait_until(
            pilot,
            lambda: app.screen.query_one("#path", Input).value.endswith("/app"),
            "the highlighted folder in the path",
        )
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step")
        assert path_value(app) == "", "the spec step starts empty: nothing is guessed"
        await give_spec(pilot, projects / "app-spec.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, BranchStep), "the branch step")
        await pilot.press("enter")  # main is highlighted
        await wait_until(pilot, lambda: on_step(app, OptionsStep), "the options step")
        await pilot.press("down", "down", "space", "enter")  # skip Puppeteer
        await wait_until(pilot, lambda: on_step(app, AdvancedStep), "the advanced step")
        await pilot.press("3", "enter")
        await wait_until(pilot, lambda: bool(link.started), "the start")
        await wait_until(pilot, lambda: app.screen is app.running, "the running view")
        await wait_until(pilot, lambda: app.running.selected is not None, "the new agent")
    spec = link.started[0]
    assert spec == AgentSpec(
        spec_file=projects / "app-spec.md",
        project_dir=projects / "app",
        target_branch="main",
        file_only_mode=True,
        skip_puppeteer=True,
        max_iterations=3,
        model=None,  # the embedded model only plays the demo: never proposed for this spec
    )


async def test_enter_goes_through_with_the_defaults_and_esc_goes_back(projects: Path) -> None:
    app, link = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        await pilot.press("enter")
        await give_spec(pilot, projects / "app-spec.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, BranchStep), "the branch step")
        await pilot.press("down", "escape")  # dev highlighted, then back
        await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step again")
        assert app.screen.query_one("#path", Input).value.endswith("app-spec.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, BranchStep), "the branch step again")
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: on_step(app, OptionsStep), "the options step")
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, AdvancedStep), "the advanced step")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(link.started), "the start")
    assert link.started[0].target_branch == "dev"
    assert link.started[0].max_iterations is None


async def test_a_missing_spec_file_is_refused(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step")
        app.screen.query_one("#path", Input).value = str(projects / "missing.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "is not a file" in error_text(app), "the refusal")
        assert on_step(app, SpecStep)


async def test_the_daemon_s_refusal_is_shown_on_the_last_step(projects: Path) -> None:
    app, link = make_app([], start_dir=projects / "app", wizard=True)
    link.refuse_start = "agent_1 is already running on workspace"
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        steps: list[type[WizardStep]] = [SpecStep, BranchStep, OptionsStep, AdvancedStep]
        for step in steps:
            await pilot.press("enter")
            await wait_until(pilot, partial(on_step, app, step), step.__name__)
            if step is SpecStep:
                await give_spec(pilot, projects / "app-spec.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "already running" in error_text(app), "the refusal")
        assert on_step(app, AdvancedStep)


async def test_esc_on_the_first_step_closes_the_wizard(projects: Path) -> None:
    app, link = make_app([], start_dir=projects, wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.running, "the running view")
        await pilot.press("n")
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the wizard again")
    assert link.started == []


async def test_a_path_is_typed_with_completion_and_the_harness_checkout_is_refused(
    projects: Path,
) -> None:
    app, _ = make_app([], start_dir=projects, wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        field = app.screen.query_one("#path", Input)
        # typing or pasting goes straight into the path
        await wait_until(pilot, lambda: field.has_focus, "the path field's focus")
        field.value = str(REPO_ROOT)  # pasted: the whole path at once
        await pilot.pause()
        await pilot.press("enter")
        await wait_until(pilot, lambda: "own checkout" in error_text(app), "the refusal")
        field.value = ""
        await pilot.press(*f"{projects}/ap")
        await wait_until(pilot, lambda: field._suggestion.endswith("/app/"), "the completion")
        await pilot.press("right", "enter")
        await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step")
    assert app.running.defaults is not None
    assert app.running.defaults.start_dir == projects


async def test_the_next_wizard_starts_in_the_last_repository(projects: Path) -> None:
    app, link = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        for step in (SpecStep, BranchStep, OptionsStep, AdvancedStep):
            await pilot.press("enter")
            await wait_until(pilot, partial(on_step, app, step), step.__name__)
            if step is SpecStep:
                await give_spec(pilot, projects / "app-spec.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(link.started), "the start")
    remembered = load_memory().last_repository
    assert remembered == projects / "app"
    defaults = WizardDefaults.from_environment({}, last_repository=remembered)
    assert defaults.start_dir == projects / "app"
    assert WizardDefaults.from_environment({}, home=projects).start_dir == projects


async def test_the_embedded_model_is_refused_for_a_users_own_spec(projects: Path) -> None:
    app, link = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        for step in (SpecStep, BranchStep, OptionsStep, AdvancedStep):
            await pilot.press("enter")
            await wait_until(pilot, partial(on_step, app, step), step.__name__)
            if step is SpecStep:
                await give_spec(pilot, projects / "app-spec.md")
        assert "local" not in str(app.screen.render())
        app.screen.query_one("#model", Input).value = "local"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "only plays the demo" in error_text(app), "the refusal")
    assert link.started == []


def test_the_demo_spec_gets_the_embedded_model_without_credentials(tmp_path: Path) -> None:
    demo = prepare_demo(tmp_path / "demo", auto_accept=False)
    state = WizardState(WizardDefaults.from_environment({}, home=tmp_path))
    state.choose_spec(demo.spec_file, plays_demo=plays_demo(demo.spec_file))
    assert state.model == "local"
    own = tmp_path / "own.md"
    own.write_text("# my feature\n")
    state.choose_spec(own, plays_demo=plays_demo(own))
    assert state.model == ""


async def test_tick_boxes_show_their_state_in_text(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        for step in (SpecStep, BranchStep, OptionsStep):
            await pilot.press("enter")
            await wait_until(pilot, partial(on_step, app, step), step.__name__)
            if step is SpecStep:
                await give_spec(pilot, projects / "app-spec.md")
        box = app.screen.query_one("#file_only_mode", Checkbox)
        assert str(box.render()).startswith("[x]")
        await pilot.press("space")
        await wait_until(pilot, lambda: str(box.render()).startswith("[ ]"), "the untick")


async def test_the_spec_step_starts_empty_in_the_repository_and_enter_does_not_guess(
    projects: Path,
) -> None:
    (projects / "app" / "docs").mkdir()
    (projects / "app" / "docs" / "feature.md").write_text("# Feature\n")
    app, link = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step")
        tree = app.screen.query_one("#tree", Tree)
        await wait_until(pilot, lambda: bool(tree.root.children), "the tree")
        assert path_value(app) == ""
        assert tree.root.data is not None and tree.root.data.path == projects / "app"
        for _ in range(4):  # four Enters start nothing: the spec is never guessed
            await pilot.press("enter")
        assert on_step(app, SpecStep)
        assert "Choose the specification file." in error_text(app)
        await pilot.press(*"docs/feature.md")  # relative to the repository
        await pilot.press("enter")
        await wait_until(pilot, lambda: on_step(app, BranchStep), "the branch step")
    assert link.started == []
    assert app.running.defaults is not None
    assert app.running.defaults.start_dir == projects / "app"


async def test_a_walk_with_a_path_pasted_into_the_tree_and_fast_typing(projects: Path) -> None:
    app, link = make_app([], start_dir=projects, wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        await pilot.press("down")  # into the folder tree
        await wait_until(pilot, lambda: isinstance(app.focused, Tree), "the tree's focus")
        await paste(app, f"{projects / 'app'}\n")  # pasted while the tree has the focus
        await wait_until(pilot, lambda: path_value(app) == str(projects / "app"), "the paste")
        # Enter, then the spec's path typed at once while the step changes
        type_fast(app, "enter", *str(projects / "app-spec.md"))
        await wait_until(pilot, lambda: on_step(app, SpecStep), "the spec step")
        await wait_until(
            pilot, lambda: path_value(app) == str(projects / "app-spec.md"), "every key typed"
        )
        await pilot.press("down")  # into the file tree; letters typed there go to the path
        await wait_until(pilot, lambda: isinstance(app.focused, Tree), "the tree's focus")
        await pilot.press(*"README.md")
        await wait_until(pilot, lambda: path_value(app) == "README.md", "the typed path")
        await pilot.press("down")
        await wait_until(pilot, lambda: isinstance(app.focused, Tree), "the tree's focus")
        await paste(app, str(projects / "app-spec.md"))
        await wait_until(
            pilot, lambda: path_value(app) == str(projects / "app-spec.md"), "the pasted path"
        )
        type_fast(app, "enter", "enter", "enter", "3", "enter")
        await wait_until(pilot, lambda: bool(link.started), "the start")
    spec = link.started[0]
    assert (spec.project_dir, spec.spec_file) == (projects / "app", projects / "app-spec.md")
    assert spec.max_iterations == 3, "the keys typed on the last step landed there"


class SlowStep(WizardStep):
    """A step whose path field appears only after a while, as on a loaded machine."""

    TYPED_FIELD = "#path"

    def compose_step(self) -> ComposeResult:
        yield from ()

    release: ClassVar[asyncio.Event]
    """Set by the test once it has seen the step without its field."""

    def on_mount(self) -> None:
        self.run_worker(self._build())

    async def _build(self) -> None:
        await self.release.wait()
        await self.query_one("#wizard").mount(Input(id="path"))


async def test_keys_typed_before_the_field_exists_land_in_it_in_order(projects: Path) -> None:
    app, _ = make_app([], start_dir=projects / "app", wizard=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: on_step(app, RepoStep), "the repository step")
        assert isinstance(app.screen, WizardStep)
        app.screen.wizard.steps = [SlowStep]
        app.screen.wizard.index = -1
        SlowStep.release = asyncio.Event()
        type_fast(app, "enter", *"spec.md")
        await wait_until(pilot, lambda: isinstance(app.screen, SlowStep), "the slow step")
        assert not app.screen.query("#path"), "the field is not there yet"
        SlowStep.release.set()
        await wait_until(pilot, lambda: bool(app.screen.query("#path")), "the field")
        await wait_until(pilot, lambda: path_value(app) == "spec.md", "the early keys")
        assert app.screen.query_one("#path", Input).has_focus

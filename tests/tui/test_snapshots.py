"""Snapshots of every screen: the wizard's five steps, the running view, and the dialog and
review screen of each checkpoint type.

Deterministic by construction: a fixed terminal size, checkpoints built from the
schemas with fixed timestamps, folders under the throwaway HOME (shown as ``~``),
and nothing on screen that carries a time or a temporary path. Update with
``pytest tests/tui/test_snapshots.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Footer, Header, Tree

from common.schemas.agent_state import Phase
from common.schemas.checkpoint import CheckpointType
from common.schemas.daemon_state import AgentStatus
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import log_lines, make_app, status_text, wait_until
from tui.app import HarnessApp
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.review import review_for
from tui.screens.wizard.base import WizardStep
from tui.screens.wizard.branch import BranchStep
from tui.screens.wizard.options import AdvancedStep, OptionsStep
from tui.screens.wizard.repo import RepoStep
from tui.screens.wizard.spec import SpecStep
from tui.services.pending import Waiting

SnapCompare = Callable[..., bool]
SIZE = (120, 36)
CSS = Path(__file__).resolve().parents[2] / "tui" / "app.tcss"


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def home_projects() -> Path:
    """``~/projects/textkit`` (a git repository on main, with dev) and ``~/projects/spec.md``."""
    root = Path(os.environ["HOME"]) / "projects"
    repo = root / "textkit"
    (repo / "textkit").mkdir(parents=True)
    (root / "notes").mkdir()
    (repo / "README.md").write_text("# textkit\n")
    git(repo, "init", "--quiet", "-b", "main")
    git(repo, "add", "README.md")
    git(repo, "-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    git(repo, "branch", "dev")
    (repo / ".git" / "info" / "exclude").write_text("/.claude-agent/\n")
    (root / "textkit-helpers.md").write_text(
        "# textkit: three more text helpers\n\n## Context\n\nAdd slugify, word_count and "
        "truncate, each in its own module with its own tests.\n"
    )
    return root


def tree_loaded(app: App[Any]) -> bool:
    trees = app.screen.query(Tree)
    return bool(trees) and all(tree.root.children for tree in trees)


async def reach(pilot: Pilot[None], step: type[WizardStep], keys: tuple[str, ...] = ()) -> None:
    """Press ``keys``, then wait for ``step`` with its folder tree (if any) loaded."""
    app = pilot.app
    await pilot.press(*keys)
    await wait_until(pilot, lambda: isinstance(app.screen, step), step.__name__)
    await wait_until(pilot, lambda: not app.screen.query(Tree) or tree_loaded(app), "the tree")
    await pilot.pause()


def wizard_app(home_projects: Path) -> HarnessApp:
    app, _ = make_app([], start_dir=home_projects, wizard=True)
    return app


def test_wizard_repository_step(snap_compare: SnapCompare, home_projects: Path) -> None:
    async def refused(pilot: Pilot[None]) -> None:
        await reach(pilot, RepoStep, ())
        await pilot.press("enter")  # ~/projects is no repository: the refusal shows

    assert snap_compare(wizard_app(home_projects), terminal_size=SIZE, run_before=refused)


@pytest.mark.parametrize(
    ("step", "keys"),
    [
        (SpecStep, ("down", "down", "enter")),
        (BranchStep, ("down", "down", "enter", "enter")),
        (OptionsStep, ("down", "down", "enter", "enter", "enter")),
        (AdvancedStep, ("down", "down", "enter", "enter", "enter", "enter")),
    ],
    ids=["spec", "branch", "options", "advanced"],
)
def test_wizard_steps(
    snap_compare: SnapCompare,
    home_projects: Path,
    step: type[WizardStep],
    keys: tuple[str, ...],
) -> None:
    async def go(pilot: Pilot[None]) -> None:
        await reach(pilot, RepoStep)
        for key in keys:
            await pilot.press(key)
            await wait_until(
                pilot,
                lambda: not pilot.app.screen.query(Tree) or tree_loaded(pilot.app),
                "the tree",
            )
        await reach(pilot, step)

    assert snap_compare(wizard_app(home_projects), terminal_size=SIZE, run_before=go)


def test_running_view(snap_compare: SnapCompare, home_projects: Path) -> None:
    project = home_projects / "textkit"
    workspace = project / ".claude-agent" / "textkit-helpers-d81bcbc3"
    (workspace / "logs").mkdir(parents=True)
    agents = [
        agent_info("agent_1", workspace, project=project, phase=Phase.CODING),
        agent_info(
            "agent_2",
            workspace,
            project=project,
            status=AgentStatus.DONE,
            phase=Phase.DONE,
            auto_accept=True,
            spec_name="cli-flags.md",
        ),
        agent_info(
            "agent_3",
            workspace,
            project=project,
            status=AgentStatus.FAILED,
            phase=Phase.SPEC_TO_ISSUES,
            spec_name="broken.md",
        ),
    ]
    agents[0].log_file.write_text(
        "09:00:01 agent for textkit-helpers.md, phase issue_selection\n"
        "09:00:01 checkpoint issue_selection-1 approved by tui:ada\n"
        "09:00:01 phase → coding\n"
        "09:00:02 ── session coding #2 (attempt 1): start\n"
        "09:00:02 [assistant] Implementing word_count in textkit/words.py.\n"
        '09:00:02 [tool] Write {"file_path": "textkit/words.py"}\n'
        "09:00:03 [result:ok] wrote 24 lines\n"
        "09:00:03 [tool] Bash python -m pytest -q\n"
        "09:00:04 [result:ok] 9 passed in 0.04s\n"
    )
    app, _ = make_app(agents)

    async def settled(pilot: Pilot[None]) -> None:
        await wait_until(pilot, lambda: bool(app.running.query("#log")), "the running view")
        await wait_until(pilot, lambda: len(log_lines(app)) == 9, "the log")
        await wait_until(pilot, lambda: "main · " in status_text(app), "the git status")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=settled)


class ModalApp(App[None]):
    """A bare app that shows one modal (dialog or review) over an empty screen."""

    CSS_PATH = CSS
    TITLE = "coding-harness"

    def __init__(self, kind: CheckpointType, *, review: bool) -> None:
        super().__init__()
        self.item = Waiting("agent_1", Path("/srv/ws"), samples.BUILDERS[kind]())
        self.review = review

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False)
        yield Footer()

    def on_mount(self) -> None:
        subtitle = "agent_1 · textkit-helpers.md"
        if self.review:
            self.push_screen(review_for(self.item, subtitle))
        else:
            self.push_screen(CheckpointDialog(self.item, subtitle=subtitle, others=1))


@pytest.mark.parametrize("kind", list(CheckpointType))
def test_checkpoint_dialog(snap_compare: SnapCompare, kind: CheckpointType) -> None:
    assert snap_compare(ModalApp(kind, review=False), terminal_size=SIZE)


@pytest.mark.parametrize("kind", list(CheckpointType))
def test_review_screen(snap_compare: SnapCompare, kind: CheckpointType) -> None:
    assert snap_compare(ModalApp(kind, review=True), terminal_size=SIZE)

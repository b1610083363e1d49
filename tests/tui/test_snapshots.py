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
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import Input, Tree

from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.auto_accept import AutoAcceptRules
from common.schemas.checkpoint import CheckpointType, IssueClosureCheckpoint
from common.schemas.coverage import SpecCoverage
from common.schemas.daemon_state import AgentStatus
from common.schemas.exit_status import ExitState
from common.schemas.issue_slot import SlotStep
from common.schemas.issues import MergeRequestRecord, TrackedIssue
from common.schemas.milestone import FileMilestone
from common.schemas.protocol import AgentInfo, SlotInfo
from common.schemas.spec import AgentSpec
from common.schemas.spend import Spend
from common.schemas.workspace import WorkspaceInfo
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import (
    ASK_FIRST,
    log_lines,
    make_app,
    status_text,
    wait_until,
    write_checkpoint,
)
from tests.tui.modal_app import ModalApp
from tui import labels
from tui.app import HarnessApp
from tui.modals.auto_accept_rules import AutoAcceptRulesScreen
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.modals.help import HelpScreen
from tui.modals.reason_prompt import ReasonPrompt
from tui.screens.wizard.base import WizardStep
from tui.screens.wizard.branch import BranchStep
from tui.screens.wizard.options import AdvancedStep, OptionsStep
from tui.screens.wizard.repo import RepoStep
from tui.screens.wizard.spec import SpecStep
from tui.widgets.agent_list import AgentList

SnapCompare = Callable[..., bool]
SIZE = (120, 36)


#: The clock every elapsed time on screen is measured on (``tui.labels.now``).
NOW = datetime(2026, 1, 15, 9, 42, 5, tzinfo=UTC)
#: Fixed author and committer dates: the commit hashes on screen are the same every run.
GIT_DATES = {
    "GIT_AUTHOR_DATE": "2026-01-15T09:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-15T09:00:00Z",
}


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(labels, "now", lambda: NOW)


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_DATES},
    )


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


SPEC_PASTE = "paste:spec"
"""Not a key: the spec's path pasted on the spec step."""


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
        (BranchStep, ("down", "down", "enter", SPEC_PASTE, "enter")),
        (OptionsStep, ("down", "down", "enter", SPEC_PASTE, "enter", "enter")),
        (AdvancedStep, ("down", "down", "enter", SPEC_PASTE, "enter", "enter", "enter")),
    ],
    ids=["spec", "branch", "options", "advanced"],
)
def test_wizard_steps(
    snap_compare: SnapCompare,
    home_projects: Path,
    step: type[WizardStep],
    keys: tuple[str, ...],
) -> None:
    spec = home_projects / "textkit-helpers.md"

    def spec_pasted() -> bool:
        return app.screen.query_one("#path", Input).value == str(spec)

    async def go(pilot: Pilot[None]) -> None:
        await reach(pilot, RepoStep)
        for key in keys:
            if key == SPEC_PASTE:  # the spec step starts empty: paste the spec's path
                await reach(pilot, SpecStep)
                pilot.app.post_message(events.Paste(str(spec)))
                await wait_until(pilot, spec_pasted, "the pasted spec")
                continue
            await pilot.press(key)
            await wait_until(
                pilot,
                lambda: not pilot.app.screen.query(Tree) or tree_loaded(pilot.app),
                "the tree",
            )
        await reach(pilot, step)

    app = wizard_app(home_projects)
    assert snap_compare(app, terminal_size=SIZE, run_before=go)


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


@pytest.mark.parametrize("kind", list(CheckpointType))
def test_checkpoint_dialog(snap_compare: SnapCompare, kind: CheckpointType) -> None:
    assert snap_compare(
        ModalApp(samples.BUILDERS[kind](), review=False, others=1), terminal_size=SIZE
    )


@pytest.mark.parametrize("kind", list(CheckpointType))
def test_checkpoint_dialog_at_80x24(snap_compare: SnapCompare, kind: CheckpointType) -> None:
    """The smallest terminal the TUI supports: each dialog's action line whole at its foot."""
    assert snap_compare(
        ModalApp(samples.BUILDERS[kind](), review=False, others=1), terminal_size=(80, 24)
    )


@pytest.mark.parametrize("kind", list(CheckpointType))
def test_review_screen(snap_compare: SnapCompare, kind: CheckpointType) -> None:
    assert snap_compare(
        ModalApp(samples.BUILDERS[kind](), review=True, others=1), terminal_size=SIZE
    )


@pytest.mark.parametrize("review", [False, True], ids=["dialog", "review"])
def test_enrichment_scope_at_80x24(snap_compare: SnapCompare, review: bool) -> None:
    """What an enrichment dropped and its diff, on the smallest terminal the TUI supports."""
    kind = CheckpointType.ENRICHMENT_SCOPE
    assert snap_compare(
        ModalApp(samples.BUILDERS[kind](), review=review, others=1), terminal_size=(80, 24)
    )


# --- the cockpit: many agents at a glance, at 80×24 and 160×48 ----------------------------

SIZES = [(80, 24), (160, 48)]
SIZE_IDS = ["80x24", "160x48"]


def cockpit_agents(home_projects: Path, gaps: SpecCoverage | None = None) -> list[AgentInfo]:
    """Three agents: one waiting for a human, one coding, one done (with its workspace files;
    partial, with ``gaps``)."""
    project = home_projects / "textkit"
    agents: list[AgentInfo] = []
    for number in (1, 2, 3):
        workspace = project / ".claude-agent" / f"spec-{number}"
        (workspace / "logs").mkdir(parents=True)
        agents.append(agent_info(f"agent_{number}", workspace, project=project))
    waiting, coding, done = agents
    checkpoint = samples.issue_closure()
    write_checkpoint(waiting.workspace, checkpoint)
    waiting = waiting.model_copy(
        update={
            "status": AgentStatus.WAITING,
            "phase": Phase.ISSUE_CLOSURE,
            "pending_checkpoint": CheckpointType.ISSUE_CLOSURE,
            "pending_since": datetime(2026, 1, 15, 9, 38, 0, tzinfo=UTC),
            "issues_closed": 1,
            "issues_total": 3,
            "spend": Spend(sessions=4, tokens_in=812_400, tokens_out=23_100, cost_usd=1.37),
        }
    )
    coding = coding.model_copy(
        update={
            "spec_file": coding.spec_file.with_name("cli-flags.md"),
            "issues_closed": 2,
            "issues_total": 5,
            "auto_accept": True,
            "auto_accept_rules": AutoAcceptRules.on(),
            "spend": Spend(sessions=7, tokens_in=1_540_000, tokens_out=61_000, cost_usd=2.9),
        }
    )
    done = done_agent(home_projects, done, gaps)
    return [coding, done, waiting]


def done_agent(home_projects: Path, info: AgentInfo, gaps: SpecCoverage | None = None) -> AgentInfo:
    """``info`` finished: a feature branch with two commits, a milestone, a state with spend
    (and, with ``gaps``, the work it left undone: issue #3 set aside)."""
    project = info.project_dir
    git(project, "checkout", "-q", "-b", "feature/slugify")
    for name in ("slug", "words"):
        (project / f"{name}.py").write_text(f"# {name}\n")
        git(project, "add", f"{name}.py")
        git(
            project, "-c", "user.name=T", "-c", "user.email=t@e.x", "commit", "-qm", f"feat: {name}"
        )
    git(project, "checkout", "-q", "main")
    files = WorkspaceFiles(info.workspace)
    spec = AgentSpec(spec_file=info.spec_file, project_dir=project, target_branch="main")
    write_model(
        files.info, WorkspaceInfo(spec=spec, spec_slug="s", feature_branch="feature/slugify")
    )
    spend = Spend(
        sessions=9,
        tokens_in=2_210_000,
        cache_read=1_900_000,
        tokens_out=88_000,
        cost_usd=4.12,
    )
    write_model(
        files.state,
        AgentState(
            phase=Phase.DONE,
            last_test_run=samples.PASSING,
            spend=spend,
            coverage=gaps,
            set_aside=gaps.set_aside if gaps is not None else [],
        ),
    )
    aside = ["needs-human"] if gaps is not None else []
    issues = [
        TrackedIssue(iid=1, title="Add slugify", description="", state="closed"),
        TrackedIssue(iid=2, title="Add word_count", description="", state="closed"),
        TrackedIssue(iid=3, title="Add truncate", description="", labels=aside),
    ]
    record = MergeRequestRecord(
        iid=1,
        title="textkit helpers",
        description="",
        source_branch="feature/slugify",
        target_branch="main",
    )
    write_model(files.milestone, FileMilestone(title="m", issues=issues, merge_request=record))
    return info.model_copy(
        update={
            "spec_file": info.spec_file.with_name("slugify.md"),
            "status": AgentStatus.DONE,
            "phase": Phase.DONE,
            "pid": None,
            "issues_closed": 2,
            "issues_total": 3,
            "spend": spend,
            "ended_at": datetime(2026, 1, 15, 9, 31, 40, tzinfo=UTC),
            "exit_state": ExitState.PARTIAL if gaps is not None else info.exit_state,
            "coverage": gaps,
            "set_aside": gaps.set_aside if gaps is not None else [],
        }
    )


def cockpit_app(home_projects: Path, gaps: SpecCoverage | None = None) -> HarnessApp:
    app, _ = make_app(cockpit_agents(home_projects, gaps), settings=ASK_FIRST)
    return app


async def cockpit_ready(pilot: Pilot[None]) -> None:
    app = pilot.app
    assert isinstance(app, HarnessApp)
    await wait_until(pilot, lambda: app.running.selected is not None, "the agents")
    await wait_until(pilot, lambda: "1 checkpoint waits" in status_text(app), "the ⚑")
    await wait_until(pilot, lambda: "main · " in status_text(app), "the git status")
    app.clear_notifications()
    await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_list_with_progress_and_spend(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    """The waiting agent sorts first and is selected."""
    assert snap_compare(cockpit_app(home_projects), terminal_size=size, run_before=cockpit_ready)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_summary_of_a_finished_agent(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    async def summary(pilot: Pilot[None]) -> None:
        await cockpit_ready(pilot)
        app = pilot.app
        assert isinstance(app, HarnessApp)
        app.running.query_one(AgentList).select("agent_3")
        await wait_until(
            pilot, lambda: "merge request" in str(app.running.query_one("#summary").render()), "it"
        )
        await pilot.pause()

    assert snap_compare(cockpit_app(home_projects), terminal_size=size, run_before=summary)


PARTIAL = SpecCoverage(
    sections=["Context", "Feature 1: slugify", "Feature 2: word_count", "Feature 3: truncate"],
    uncovered=["Feature 3: truncate"],
    set_aside=[3],
)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_summary_of_a_partial_run(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    """Done, but issue #3 was set aside: the list says partial, the summary names the gaps."""

    async def summary(pilot: Pilot[None]) -> None:
        await cockpit_ready(pilot)
        app = pilot.app
        assert isinstance(app, HarnessApp)
        app.running.query_one(AgentList).select("agent_3")
        await wait_until(
            pilot, lambda: "merge request" in str(app.running.query_one("#summary").render()), "it"
        )
        await pilot.pause()

    app = cockpit_app(home_projects, PARTIAL)
    assert snap_compare(app, terminal_size=size, run_before=summary)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_help(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    async def helped(pilot: Pilot[None]) -> None:
        await cockpit_ready(pilot)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help")
        await pilot.pause()

    assert snap_compare(cockpit_app(home_projects), terminal_size=size, run_before=helped)


def test_cockpit_auto_accept_rules_at_80x24(snap_compare: SnapCompare, home_projects: Path) -> None:
    """The rules modal of the waiting agent, one row toggled: every type on one screen."""

    async def rules(pilot: Pilot[None]) -> None:
        await cockpit_ready(pilot)
        await pilot.press("A")
        screen = AutoAcceptRulesScreen
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, screen), "the rules")
        await pilot.press("down", "down", "down", "down", "down", "down", "space")
        await pilot.pause()

    assert snap_compare(cockpit_app(home_projects), terminal_size=(80, 24), run_before=rules)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_dialog(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    async def dialog(pilot: Pilot[None]) -> None:
        await cockpit_ready(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CheckpointDialog), "dialog")
        await pilot.pause()

    assert snap_compare(cockpit_app(home_projects), terminal_size=size, run_before=dialog)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_reason_prompt(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    async def reason(pilot: Pilot[None]) -> None:
        await cockpit_ready(pilot)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, CheckpointDialog), "dialog")
        await pilot.press("n", *"use a regex")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ReasonPrompt), "the prompt")
        await pilot.pause()

    assert snap_compare(cockpit_app(home_projects), terminal_size=size, run_before=reason)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_wizard(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    app = wizard_app(home_projects)
    spec = str(home_projects / "textkit-helpers.md")

    async def options(pilot: Pilot[None]) -> None:
        await reach(pilot, RepoStep)
        for key in ("down", "down", "enter", SPEC_PASTE, "enter", "enter"):
            if key == SPEC_PASTE:  # the spec step starts empty: paste the spec's path
                await reach(pilot, SpecStep)
                app.post_message(events.Paste(spec))
                await wait_until(
                    pilot, lambda: app.screen.query_one("#path", Input).value == spec, "paste"
                )
                continue
            await pilot.press(key)
            await wait_until(
                pilot,
                lambda: not pilot.app.screen.query(Tree) or tree_loaded(pilot.app),
                "the tree",
            )
        await reach(pilot, OptionsStep)

    assert snap_compare(app, terminal_size=size, run_before=options)


def parallel_agent(home_projects: Path) -> AgentInfo:
    """One agent working eight issues at once, issue #3's closure waiting for a person."""
    project = home_projects / "textkit"
    workspace = project / ".claude-agent" / "spec-parallel"
    (workspace / "logs").mkdir(parents=True)
    closure = samples.issue_closure("issue_closure-issue3-2")
    assert isinstance(closure, IssueClosureCheckpoint)
    about_3 = closure.context.model_copy(update={"issue_iid": 3, "issue_title": "Add truncate"})
    write_checkpoint(workspace, closure.model_copy(update={"context": about_3}))
    rows = [
        (1, SlotStep.CODING, 252, 2, 0, "Add slugify"),
        (2, SlotStep.REGRESSION, 220, 3, 0, "Add word_count"),
        (3, SlotStep.CLOSURE, 362, 2, 0, "Add truncate"),
        (4, SlotStep.MERGING, 540, 4, 1, "Add slug_unique"),
        (5, SlotStep.CODING, 31, 1, 0, "Wrap long lines at a width the caller gives, words whole"),
        (6, SlotStep.SELECTION, 2, 0, 0, "Count sentences"),
        (7, SlotStep.CODING, 95, 1, 0, "Strip accents"),
        (8, SlotStep.CODING, 64, 1, 0, "Title case"),
    ]
    slots = [
        SlotInfo(
            iid=iid,
            step=step,
            started_at=NOW - timedelta(seconds=seconds),
            spend=Spend(
                sessions=sessions,
                tokens_in=24_100 * sessions,
                tokens_out=1_550 * sessions,
                cost_usd=0.11 * sessions,
            ),
            conflicts=conflicts,
            title=title,
            waiting=iid == 3,
        )
        for iid, step, seconds, sessions, conflicts, title in rows
    ]
    info = agent_info("agent_1", workspace, project=project, phase=Phase.ISSUE_SELECTION)
    return info.model_copy(
        update={
            "spec_file": info.spec_file.with_name("textkit-more.md"),
            "status": AgentStatus.WAITING,
            "pending_checkpoint": CheckpointType.ISSUE_CLOSURE,
            "pending_since": NOW - timedelta(seconds=75),
            "issues_total": 8,
            "spend": Spend(sessions=14, tokens_in=337_400, tokens_out=21_700, cost_usd=1.54),
            "slots": slots,
        }
    )


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cockpit_slots_of_a_parallel_agent(
    snap_compare: SnapCompare, home_projects: Path, size: tuple[int, int]
) -> None:
    """A row per slot, #3 marked as the one its checkpoint is about; at 80×24 the rows past a
    quarter of the screen are counted on the last one."""
    app, _ = make_app([parallel_agent(home_projects)], settings=ASK_FIRST)
    assert snap_compare(app, terminal_size=size, run_before=cockpit_ready)

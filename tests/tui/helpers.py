"""Waiting on the app instead of sleeping, and building test apps."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.pilot import Pilot

from common.atomic import write_model
from common.paths import WorkspaceFiles
from common.schemas.checkpoint import Checkpoint, CheckpointFile
from common.schemas.protocol import AgentInfo
from common.schemas.tui_settings import TuiSettings
from tests.tui.fakes import FakeLink
from tui.app import HarnessApp
from tui.modals.checkpoint_dialog import CheckpointDialog
from tui.screens.wizard import WizardDefaults
from tui.widgets.log_view import LogView
from tui.widgets.status_bar import StatusBar

#: Generous, for slow CI machines; a passing test returns as soon as its condition holds.
TIMEOUT = 15.0
STEP = 0.02


async def wait_until(
    pilot: Pilot[None], condition: Callable[[], bool], what: str, timeout: float = TIMEOUT
) -> None:
    """Let the app run until ``condition`` holds; fail with ``what`` after ``timeout`` s."""
    for _ in range(int(timeout / STEP)):
        if condition():
            return
        await pilot.pause(STEP)
    raise AssertionError(f"timed out waiting for {what}")


#: The dialog tests' settings: dialogs open by themselves and take keys at once, so a
#: test is about the dialog. How checkpoints arrive is tested with :data:`ASK_FIRST`.
DIALOG_TESTS = TuiSettings(auto_open=True, key_grace_s=0)
#: The defaults a person gets: checkpoints wait until asked for.
ASK_FIRST = TuiSettings()


def make_app(
    agents: list[AgentInfo],
    *,
    start_dir: Path | None = None,
    wizard: bool = False,
    settings: TuiSettings = DIALOG_TESTS,
    terminal: list[str] | None = None,
    silent: bool = False,
) -> tuple[HarnessApp, FakeLink]:
    """The TUI on a :class:`FakeLink` serving ``agents`` (``silent``: once it is told to
    answer); terminal writes go to ``terminal``."""
    link = FakeLink(agents, silent=silent)
    defaults = WizardDefaults(start_dir=start_dir or Path("/"), model="local", file_only_mode=True)
    written = terminal if terminal is not None else []
    app = HarnessApp(
        link, defaults, settings=settings, terminal=written.append, wizard_when_empty=wizard
    )
    return app, link


def write_checkpoint(workspace: Path, checkpoint: Checkpoint) -> None:
    """Write a checkpoint file exactly as the agent does."""
    write_model(WorkspaceFiles(workspace).checkpoint, CheckpointFile(checkpoint))


def dialog(app: HarnessApp) -> CheckpointDialog | None:
    """The checkpoint dialog on top, once it is mounted (its widgets composed).

    A dialog is on the screen stack before its children exist; reading or pressing keys
    into it then races its composition.
    """
    screen = app.screen
    return screen if isinstance(screen, CheckpointDialog) and screen.is_mounted else None


def dialog_for(app: HarnessApp, checkpoint_id: str) -> Callable[[], bool]:
    """Condition: the dialog of ``checkpoint_id`` is on top."""

    def showing() -> bool:
        found = dialog(app)
        return found is not None and found.checkpoint.id == checkpoint_id

    return showing


def log_lines(app: HarnessApp) -> list[str]:
    """What the running view's log shows, a line per log line."""
    return app.running.query_one(LogView).plain_lines()


def last_log_line(app: HarnessApp, text: str) -> Callable[[], bool]:
    """Condition: the log view's last line is ``text``."""
    return lambda: log_lines(app)[-1:] == [text]


def status_text(app: HarnessApp) -> str:
    """The status bar as plain text."""
    return str(app.running.query_one(StatusBar).render())

"""Reminders reach the TUI: a checkpoint that still waits is announced again every R minutes.

R is the agent's ``checkpoint_timeout.remind_every_minutes``, carried in its agent info.
The count is pure (tested on fixed instants); the pilot tests run with R = 0.01 min
(0.6 s) on the real clock and read what the terminal got (bell and OSC 9/777 per
announcement) and the toasts.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from common.schemas.base import utc_now
from common.schemas.checkpoint import Checkpoint
from common.schemas.daemon_state import AgentStatus
from common.schemas.protocol import AgentInfo
from common.schemas.tui_settings import TuiSettings
from tests.tui import samples
from tests.tui.fakes import agent_info
from tests.tui.helpers import (
    ASK_FIRST,
    dialog,
    dialog_for,
    make_app,
    status_text,
    wait_until,
    write_checkpoint,
)
from tui.app import HarnessApp
from tui.services.reminders import next_reminder_at, reminder_text, reminders_due

T0 = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
#: 0.6 s: long enough to tell the first announcement from the second, short for a test.
SHORT_R = 0.01


@pytest.mark.parametrize(
    ("waited", "every", "due"),
    [
        (timedelta(0), 30, 0),
        (timedelta(minutes=29, seconds=59), 30, 0),
        (timedelta(minutes=30), 30, 1),  # the first falls exactly at R
        (timedelta(minutes=89), 30, 2),
        (timedelta(hours=5), 60, 5),
        (timedelta(seconds=1.2), 0.01, 2),  # fractions of a minute, no float drift
        (timedelta(seconds=1.1999), 0.01, 1),
        (timedelta(minutes=-3), 1, 0),  # a clock behind the agent's: never early
    ],
)
def test_reminders_due_counts_whole_periods_since_the_checkpoint_was_raised(
    waited: timedelta, every: float, due: int
) -> None:
    assert reminders_due(T0, T0 + waited, every) == due


@pytest.mark.parametrize("every", [0.01, 0.35, 1, 7.5, 60])
def test_at_each_reminders_moment_exactly_that_many_are_due(every: float) -> None:
    """The timer is set for :func:`next_reminder_at`: the count there is one more, never
    one short by a rounding (which would make the timer fire again and again)."""
    for sent in range(50):
        at = next_reminder_at(T0, sent, every)
        assert reminders_due(T0, at, every) == sent + 1
        assert reminders_due(T0, at - timedelta(microseconds=1), every) == sent


def test_the_reminder_says_how_long_it_has_waited_and_which_issue() -> None:
    waited = timedelta(hours=1, minutes=2, seconds=9)
    assert reminder_text("agent_1", "issue_closure", 3, waited) == (
        "agent_1 has waited 1h02m: issue_closure of #3"
    )
    assert reminder_text("agent_2", "mr_review", None, timedelta(minutes=12)) == (
        "agent_2 has waited 12m: mr_review"
    )


def waiting_agent(
    name: str, workspace: Path, checkpoint: Checkpoint, every: float | None
) -> AgentInfo:
    """``name`` waiting at ``checkpoint`` (its file written), reminding every ``every``."""
    write_checkpoint(workspace, checkpoint)
    info = agent_info(name, workspace, status=AgentStatus.WAITING, pending=checkpoint.type)
    return info.model_copy(update={"remind_every_minutes": every})


def announcements(written: list[str], text: str) -> int:
    """How many desktop notifications (OSC 9) the terminal got that contain ``text``."""
    return sum(chunk.count("\x1b]9;") for chunk in written if text in chunk)


def toasts(app: HarnessApp) -> list[str]:
    return [str(toast.message) for toast in app._notifications]


def raised_now(checkpoint: Checkpoint) -> Checkpoint:
    return checkpoint.model_copy(update={"created_at": utc_now()})


async def test_a_waiting_checkpoint_is_announced_again_only_where_the_spec_asks(
    scratch: Path, workspace: Path
) -> None:
    """agent_1 (R = 0.6 s) is reminded, each time with how long it waited; agent_2, with
    no ``remind_every_minutes``, is announced once."""
    other = scratch / "proj2" / ".claude-agent" / "ws"
    (other / "logs").mkdir(parents=True)
    closure = raised_now(samples.issue_closure())
    review = raised_now(samples.mr_review())
    agents = [
        waiting_agent("agent_1", workspace, closure, SHORT_R),
        waiting_agent("agent_2", other, review, None),
    ]
    written: list[str] = []
    app, _ = make_app(agents, settings=ASK_FIRST, terminal=written)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: "2 checkpoints wait" in status_text(app), "the ⚑")
        await wait_until(
            pilot, lambda: announcements(written, "agent_1 has waited") >= 2, "two reminders"
        )
        assert dialog(app) is None  # a reminder never opens the dialog
        reminded = [text for text in toasts(app) if "has waited" in text]
    assert announcements(written, "agent_1 waits at issue_closure") == 1
    assert announcements(written, "agent_2 waits at mr_review") == 1
    assert announcements(written, "agent_2") == 1  # never reminded
    # The seconds waited are what the clock says (0s, or 1s on a loaded machine).
    waited = r"agent_1 has waited [0-9]s: issue_closure of #1"
    assert re.search(rf"\x1b\]777;notify;coding-harness;{waited}\a", "".join(written))
    assert re.fullmatch(rf"⚑ {waited} — c or Enter answers", reminded[0])


async def test_a_checkpoint_set_aside_is_still_reminded_but_its_dialog_stays_closed(
    workspace: Path,
) -> None:
    checkpoint = raised_now(samples.issue_closure())
    written: list[str] = []
    settings = TuiSettings(auto_open=True, key_grace_s=0)
    app, _ = make_app(
        [waiting_agent("agent_1", workspace, checkpoint, SHORT_R)],
        settings=settings,
        terminal=written,
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog opens by itself")
        await pilot.press("escape")
        await wait_until(pilot, lambda: dialog(app) is None, "set aside")
        await wait_until(
            pilot, lambda: announcements(written, "agent_1 has waited") >= 2, "two reminders"
        )
        assert dialog(app) is None
        await pilot.press("c")  # the person takes it up when they come back
        await wait_until(pilot, dialog_for(app, checkpoint.id), "the dialog on c")


async def test_a_tui_started_late_announces_once_then_reminds_on_the_beat(
    workspace: Path,
) -> None:
    """A checkpoint raised long ago (the samples' fixed date) would owe thousands of
    reminders: the TUI announces it once and then reminds one at a time."""
    checkpoint = samples.issue_closure()
    written: list[str] = []
    app, _ = make_app(
        [waiting_agent("agent_1", workspace, checkpoint, SHORT_R)],
        settings=ASK_FIRST,
        terminal=written,
    )
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(
            pilot, lambda: announcements(written, "agent_1 has waited") >= 1, "a reminder"
        )
        first = announcements(written, "agent_1 has waited")
    assert first == 1
    assert announcements(written, "agent_1 waits at issue_closure") == 1

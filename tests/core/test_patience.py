"""Checkpoint timeouts as arithmetic: when reminders and the timeout fall, what it does."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from agent.core.run import patience
from common.schemas.checkpoint import Checkpoint
from common.schemas.notify import CheckpointTimeout
from common.schemas.spec import AgentSpec
from tests.core.checkpoint_samples import mr_transition


def timeout(minutes: float, then: str = "default", every: float | None = None) -> CheckpointTimeout:
    return CheckpointTimeout.model_validate(
        {"minutes": minutes, "then": then, "remind_every_minutes": every}
    )


@pytest.mark.parametrize(
    ("minutes", "every", "sent", "expected"),
    [
        (60, None, 0, ("timeout", 3600.0)),
        (60, 20, 0, ("reminder", 1200.0)),
        (60, 20, 1, ("reminder", 2400.0)),
        (60, 20, 2, ("timeout", 3600.0)),  # a reminder at the timeout is the timeout's
        (60, 25, 2, ("timeout", 3600.0)),
        (0.05, 0.02, 0, ("reminder", 1.2)),
        (10, 30, 0, ("timeout", 600.0)),  # reminders rarer than the timeout: none
    ],
)
def test_the_next_moment(
    minutes: float, every: float | None, sent: int, expected: tuple[str, float]
) -> None:
    moment, at = patience.next_moment(timeout(minutes, every=every), sent)
    assert moment == expected[0] and at == pytest.approx(expected[1])


def test_a_checkpoint_that_always_asks_never_times_out_into_an_approval() -> None:
    assert patience.outcome(timeout(5), []) == "default"
    assert patience.outcome(timeout(5), ["a flagged file"]) == "stop"
    assert patience.outcome(timeout(5, "stop"), []) == "stop"
    shown = mr_transition()
    said = patience.stop_reason(timeout(5), shown, ["a flagged file"])
    assert "always asks a person" in said and "harness resume" in said
    assert "always asks" not in patience.stop_reason(timeout(5, "stop"), shown, [])


@pytest.mark.parametrize(("minutes", "text"), [(5, "5"), (0.05, "0.05"), (90.0, "90")])
def test_the_rule_says_the_minutes_as_given(minutes: float, text: str) -> None:
    assert patience.rule(timeout(minutes)) == f"timeout after {text} min: default"


@pytest.mark.parametrize(
    "given",
    [
        {"minutes": 0, "then": "default"},
        {"minutes": -1, "then": "stop"},
        {"minutes": 5, "then": "approve"},
        {"minutes": 5, "then": "stop", "remind_every_minutes": 0},
        {"minutes": float("inf"), "then": "stop"},
        {"minutes": 5},
    ],
)
def test_a_bad_timeout_is_refused(given: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        CheckpointTimeout.model_validate(given)


def test_the_spec_takes_the_timeout(tmp_path: object) -> None:
    spec = AgentSpec.model_validate(
        {
            "spec_file": "/s.md",
            "project_dir": "/p",
            "target_branch": "main",
            "checkpoint_timeout": {"minutes": 0.1, "then": "stop", "remind_every_minutes": 0.05},
        }
    )
    assert spec.checkpoint_timeout == timeout(0.1, "stop", 0.05)


class Clock:
    """A clock the test moves: the wait's arithmetic without waiting minutes."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_wait_patiently_reminds_then_gives_up() -> None:
    decided: asyncio.Future[Checkpoint] = asyncio.get_running_loop().create_future()
    reminders: list[float] = []
    waited = asyncio.create_task(
        patience.wait_patiently(decided, timeout(0.003, every=0.001), reminders.append)
    )
    assert await asyncio.wait_for(waited, 5) is None
    assert len(reminders) == 2 and reminders[0] >= 0.06 and reminders[1] >= 0.12
    assert not decided.cancelled()  # the caller owns it


async def test_wait_patiently_returns_an_answer_before_the_timeout() -> None:
    decided: asyncio.Future[Checkpoint] = asyncio.get_running_loop().create_future()
    clock = Clock()
    waited = asyncio.create_task(
        patience.wait_patiently(decided, timeout(10, every=1), lambda _s: None, clock)
    )
    await asyncio.sleep(0.01)
    answered = mr_transition()
    decided.set_result(answered)
    assert await asyncio.wait_for(waited, 5) is answered

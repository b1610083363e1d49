"""Each checkpoint type has one review screen, found through one registry.

The type's other rules (labels, reject, diff) are common's
(:mod:`common.workspace.kinds`); what is the TUI's is which screen reviews it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from common.schemas.checkpoint import Checkpoint, CheckpointType
from tests.core.checkpoint_samples import every_type
from tui.modals.review import REVIEWS, ReviewScreen, review_for
from tui.services.pending import Waiting


def waiting(checkpoint: Checkpoint) -> Waiting:
    return Waiting("agent_1", Path("/srv/ws"), checkpoint)


def test_every_checkpoint_type_has_exactly_one_review_screen() -> None:
    assert sorted(REVIEWS) == sorted(CheckpointType)
    assert len(set(REVIEWS.values())) == len(CheckpointType)


@pytest.mark.parametrize("checkpoint", every_type(), ids=lambda c: c.type.value)
def test_the_review_of_a_checkpoint_is_its_types_screen(checkpoint: Checkpoint) -> None:
    screen = review_for(waiting(checkpoint), "agent_1 · spec.md")
    assert isinstance(screen, ReviewScreen)
    assert type(screen) is REVIEWS[checkpoint.type]
    assert screen.checkpoint is checkpoint
    assert isinstance(checkpoint, screen.MODEL)


@pytest.mark.parametrize("kind", list(CheckpointType), ids=str)
def test_a_review_screen_refuses_a_checkpoint_of_another_type(kind: CheckpointType) -> None:
    other = next(sample for sample in every_type() if sample.type is not kind)
    with pytest.raises(TypeError, match=f"does not review {other.type.value}"):
        REVIEWS[kind](waiting(other), "")

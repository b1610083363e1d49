"""Variables set for one block are put back as they were, set or unset."""

from __future__ import annotations

import os

import pytest

from common.environment import environment_for_block


def test_a_block_sees_its_values_and_leaves_the_environment_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS_TEST_KEPT", "before")
    monkeypatch.delenv("HARNESS_TEST_NEW", raising=False)
    with environment_for_block({"HARNESS_TEST_KEPT": "during", "HARNESS_TEST_NEW": "x"}):
        assert os.environ["HARNESS_TEST_KEPT"] == "during"
        assert os.environ["HARNESS_TEST_NEW"] == "x"
    assert os.environ["HARNESS_TEST_KEPT"] == "before"
    assert "HARNESS_TEST_NEW" not in os.environ


def test_the_environment_is_put_back_when_the_block_fails(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HARNESS_TEST_NEW", raising=False)
    with pytest.raises(RuntimeError), environment_for_block({"HARNESS_TEST_NEW": "x"}):
        raise RuntimeError("inside")
    assert "HARNESS_TEST_NEW" not in os.environ

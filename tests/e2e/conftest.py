"""Fixtures the end-to-end tests share."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.agents import harness


@pytest.fixture
def daemon_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A ``HARNESS_HOME`` of the test's own (short: the socket's path must fit), whose
    daemon is stopped when the test ends."""
    home = Path(tempfile.mkdtemp(prefix="hd", dir="/tmp"))
    monkeypatch.setenv("HARNESS_HOME", str(home))
    yield home
    harness("daemon", "stop")

"""Keep the developer's machine out of every test: HOME and HARNESS_HOME are throwaway,
and no test leaves a process behind (:mod:`tests.process_guard`).

Project environments (the demo's venv) are cached in one folder for every test and
run, so that only the first demo of a machine builds one.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.core.browser.install import CACHE_VARIABLE as TOOLS_CACHE_VARIABLE
from agent.demo_env import CACHE_VARIABLE
from common.credentials import CREDENTIAL_VARIABLES
from common.env_file import VARIABLE as ENV_FILE_VARIABLE
from tests.process_guard import (  # no test leaves a process behind (the hooks)
    pytest_configure as pytest_configure,
)
from tests.process_guard import pytest_runtest_teardown as pytest_runtest_teardown
from tests.process_guard import pytest_sessionfinish as pytest_sessionfinish
from tests.process_guard import pytest_testnodedown as pytest_testnodedown

TEST_TOOLS_CACHE = Path(tempfile.gettempdir()) / "harness-test-tools"
"""Where the tests' browser server is installed (shared, like the demo's environment)."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist (``--dist loadgroup``) each test goes to whichever worker is free, but
    the Docker tests, which share one engine, image and container names, run in one
    worker one after another (one group), and so do the tests of a file with a ``NONCE``.
    First among the hooks: xdist's own reads the marks to suffix the node ids, and a mark
    added after it is silently ignored.

    The slow tests come first (the Docker group at their head): workers take tests in
    this order, and a long test taken last would run alone at the end while the other
    workers idle."""
    for item in items:
        if item.nodeid.startswith("tests/docker/"):
            item.add_marker(pytest.mark.xdist_group("docker"))
        elif hasattr(getattr(item, "module", None), "NONCE"):
            # The file marks its processes with one nonce and looks for what outlived a
            # test: its other tests, running at the same time elsewhere, would be found.
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))

    def rank(item: pytest.Item) -> int:
        if item.nodeid.startswith("tests/docker/"):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=rank)  # stable: each rank keeps the collection's order


@pytest.fixture(autouse=True)
def isolated_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point HOME and HARNESS_HOME at short temp folders (AF_UNIX paths stay short)."""
    home = Path(tempfile.mkdtemp(prefix="h", dir="/tmp"))
    harness_home = home / "hh"
    harness_home.mkdir(mode=0o700)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HARNESS_HOME", str(harness_home))
    monkeypatch.setenv(CACHE_VARIABLE, str(Path(tempfile.gettempdir()) / "harness-test-envs"))
    # The browser server is installed once for every test too (scripts/test.sh does it first).
    monkeypatch.setenv(TOOLS_CACHE_VARIABLE, str(TEST_TOOLS_CACHE))
    for name in CREDENTIAL_VARIABLES:  # the developer's Claude key stays out too
        monkeypatch.delenv(name, raising=False)
    # ... and so does the checkout's .env, which `harness run` reads as start.sh does.
    monkeypatch.setenv(ENV_FILE_VARIABLE, str(home / "no.env"))
    yield harness_home
    shutil.rmtree(home, ignore_errors=True)

"""One engine and one freshly built test image per session; no container outlives it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.docker import engine


@pytest.fixture(scope="session")
def docker_image() -> Iterator[str]:
    """:data:`engine.TEST_IMAGE`, built from the working tree (the layers cache across runs).

    Skips only when no engine answers and the base-image script cannot start one (it
    needs root to install docker.io and start dockerd); a failing build fails.
    """
    if not engine.engine_answers() or not engine.docker_has_base_image():
        why = engine.prepare_engine()
        if why is not None:
            pytest.skip(f"no Docker engine can be started here: {why}")
    engine.remove_test_containers()
    started = time.monotonic()
    engine.build_test_image()
    print(f"test image built in {time.monotonic() - started:.1f} s")
    yield engine.TEST_IMAGE
    engine.remove_test_containers()

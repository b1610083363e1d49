"""Variables set in this process's environment for one block, then put back as they were."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping


@contextlib.contextmanager
def environment_for_block(values: Mapping[str, str]) -> Iterator[None]:
    """``values`` in ``os.environ`` while the block runs; afterwards each variable has its
    value from before again, or is unset if it was unset. For code that reads its settings
    from the environment only (the OpenTelemetry exporter; the demo's private daemon home
    and tracker)."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

"""Finding a bubblewrap that works here: moved to :mod:`common.bwrap`, where the
harness's own git (common/workspace) can use it too without importing agent/."""

from __future__ import annotations

from common.bwrap import BWRAP_VARIABLE, PROBE_TIMEOUT_S, find_bwrap, probe

__all__ = ["BWRAP_VARIABLE", "PROBE_TIMEOUT_S", "find_bwrap", "probe"]

"""Whether a spec is the demo's: the embedded model plays that one and refuses any other.

Why here: what only the demo may do is known where the model is chosen (the CLI and
the TUI's wizard choose it for a new run), never by the core or the TUI's own code,
which ask this module instead of the embedded model.
"""

from __future__ import annotations

import logging
from pathlib import Path

from agent.model.playbook import DEMO_PLAYBOOK, ONLY_THE_DEMO, PlaybookError, load_playbook

log = logging.getLogger(__name__)

__all__ = ["ONLY_THE_DEMO", "plays_demo"]


def plays_demo(spec_file: Path) -> bool:
    """Whether the embedded model's demo playbook plays ``spec_file``."""
    try:
        return load_playbook(DEMO_PLAYBOOK).plays(spec_file.read_text(errors="replace"))
    except (OSError, PlaybookError) as e:
        log.warning("cannot tell whether %s is the demo: %s", spec_file, e)
        return False

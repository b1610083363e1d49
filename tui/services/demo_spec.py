"""Whether a spec is the demo's: the embedded model plays that one and refuses any other."""

from __future__ import annotations

import logging
from pathlib import Path

from agent.model.playbook import DEMO_PLAYBOOK, PlaybookError, load_playbook

log = logging.getLogger(__name__)


def plays_demo(spec_file: Path) -> bool:
    """Whether the embedded model's demo playbook plays ``spec_file``."""
    try:
        return load_playbook(DEMO_PLAYBOOK).plays(spec_file.read_text(errors="replace"))
    except (OSError, PlaybookError) as e:
        log.warning("cannot tell whether %s is the demo: %s", spec_file, e)
        return False

"""What the TUI says on the shell as it quits: the agents it leaves running, what waits.

``q`` closes the TUI and nothing else: the daemon keeps the agents, and a checkpoint keeps
waiting for a person. A blank shell after ``q`` said none of that; a person who quit
with a checkpoint open could believe it answered, or the agents stopped. These lines
say who runs on, what waits for whom and since when, and how to come back.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from common.untrusted_text import printable_line
from tui import labels
from tui.services.pending import LIVE, Waiting

if TYPE_CHECKING:
    from common.schemas.protocol import AgentInfo

#: How to open the TUI again (``start.sh`` runs ``python -m tui.main``, and reconnects).
COME_BACK = "./start.sh"
#: Set by a launcher that knows better (a container's entrypoint: "Enter").
COME_BACK_VARIABLE = "HARNESS_TUI_AGAIN"


def harness_command(environ: Mapping[str, str], cwd: str, prefix: str = sys.prefix) -> str:
    """``harness`` as the person can type it in this shell: the bare name when ``PATH``
    finds this installation's, else its path (``.venv/bin/harness`` from the checkout)."""
    own = Path(prefix, "bin", "harness")
    found = shutil.which("harness", path=environ.get("PATH", ""))
    if found is not None and Path(found).resolve() == own.resolve():
        return "harness"
    relative = os.path.relpath(own, cwd)
    return relative if not relative.startswith("..") else str(own)


def farewell(
    agents: Iterable[AgentInfo],
    waiting: Sequence[Waiting],
    now: datetime,
    environ: Mapping[str, str] | None = None,
) -> str:
    """The lines to print after the TUI closed (empty: no agent runs on)."""
    env = os.environ if environ is None else environ
    again = printable_line(env.get(COME_BACK_VARIABLE) or COME_BACK)
    harness = printable_line(harness_command(env, str(Path.cwd())))
    live = sorted(printable_line(info.name) for info in agents if info.status in LIVE)
    if not live:
        return ""
    noun = "agent" if len(live) == 1 else "agents"
    lines = [f"The TUI is closed; the daemon keeps {len(live)} {noun} running: {', '.join(live)}."]
    for item in waiting:
        checkpoint = item.checkpoint
        since = labels.duration(now - checkpoint.created_at)
        lines.append(
            f"  ⚑ {printable_line(item.agent)} waits for you at {checkpoint.type.value} "
            f"(for {since}): nothing was decided."
        )
    if waiting:
        first = printable_line(waiting[0].agent)
        lines.append(
            f"Come back with {again} (the TUI again), or answer from here: "
            f"{harness} checkpoint {first}, then {harness} approve {first} or "
            f"{harness} reject {first}."
        )
    else:
        lines.append(f"Come back with {again} (the TUI again); {harness} list shows them.")
    return "\n".join(lines)

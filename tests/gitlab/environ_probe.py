"""Run by the model's Bash tool: ``python environ_probe.py OUT``, what the model could read.

It climbs from its own process to the outermost harness process among its
ancestors (the daemon, or an agent started by hand) and writes, for every process
of that one's tree, its pid, arguments and the whole of ``/proc/PID/environ`` to
``OUT`` as JSON. It knows no token: the test
looks for one in what it wrote.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.procfs import cmdline_of, environ_of, parent_of, process_tree

HARNESS_MODULES = ("agent.daemon", "agent.process")


def outermost_harness_process() -> int:
    found = None
    pid: int | None = os.getpid()
    while pid:
        if any(module in cmdline_of(pid) for module in HARNESS_MODULES):
            found = pid
        pid = parent_of(pid)
    if found is None:
        raise SystemExit("no harness process among this process's ancestors")
    return found


LAUNCHER = "environ_probe_run.py"
"""The probe's launcher in a project: the command policy runs project scripts only."""
SEEN = ".pytest_cache/seen.json"
"""Where, relative to the project, the launched probe writes (a folder git ignores)."""


def install(project: Path) -> str:
    """Put the launcher in ``project``; return the Bash command that runs the probe."""
    probe = str(Path(__file__).resolve())
    (project / LAUNCHER).write_text(
        f"import runpy, sys\nsys.argv = [{probe!r}, *sys.argv[1:]]\n"
        f"runpy.run_path({probe!r}, run_name='__main__')\n"
    )
    return f"python3 {LAUNCHER} {SEEN}"


def main(out: Path) -> None:
    seen = []
    for pid in process_tree(outermost_harness_process()):
        try:
            seen.append(
                {
                    "pid": pid,
                    "cmdline": cmdline_of(pid),
                    "environ": environ_of(pid).decode(errors="replace"),
                }
            )
        except (FileNotFoundError, ProcessLookupError):
            continue  # it ended meanwhile
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"probe": os.getpid(), "processes": seen}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))

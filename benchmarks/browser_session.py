"""What the browser adds to a coding session, and what the replay costs before the MR.

Usage: ``.venv/bin/python -m benchmarks.browser_session [--runs 3]``

Runs the web demo (``harness demo --web``'s project, spec and playbook, auto-accept,
sandboxed, a real agent process) twice per round: as it is, and without the browser
(no ``web`` section; the coding scenario without its three browser calls, its serve and
wait steps kept). Printed per run: the coding session's wall time (its trace's start to
end), the replay's (the log's "browser checks" line back to the phase change before it)
and the whole run. The difference of the coding sessions is the browser's cost: the
server's and Chromium's start, the three calls, the screenshot taken out, the shutdown.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from agent.frontend.demo import WEB, prepare_demo
from common.paths import WorkspaceFiles
from common.workspace.setup import prepare_workspace

REPO = Path(__file__).resolve().parents[1]
BROWSER_STEP = "mcp__browser__"


def without_browser(playbook: Path, target: Path) -> Path:
    """The web playbook with the coding session's browser calls left out."""
    book: dict[str, Any] = json.loads(playbook.read_text())
    for scenario in book["scenarios"]:
        scenario["steps"] = [
            step
            for step in scenario["steps"]
            if not any(use["name"].startswith(BROWSER_STEP) for use in step.get("tool_uses", []))
        ]
    target.write_text(json.dumps(book))
    return target


def one_run(browser: bool) -> tuple[float, float, float]:
    """Coding session seconds, replay seconds, whole run seconds."""
    root = Path(tempfile.mkdtemp(prefix="bbs-", dir="/tmp"))
    spec = prepare_demo(root / "demo", True, kind=WEB)
    if not browser:
        playbook = without_browser(spec.playbook or Path(), root / "playbook.json")
        spec = spec.model_copy(update={"web": None, "playbook": playbook})
    files = WorkspaceFiles(prepare_workspace(spec))
    started = time.monotonic()
    with (files.logs / "bench.log").open("ab") as log:
        done = subprocess.run(
            [sys.executable, "-m", "agent.process", "--workspace", str(files.root)],
            cwd=REPO,
            env=dict(os.environ),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            timeout=300,
            check=False,
        )
    whole = time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"the run failed; see {files.logs / 'bench.log'}")
    events = [json.loads(line) for line in (files.root / "trace.jsonl").read_text().splitlines()]
    starts = {e["session"]: e for e in events if e["type"] == "session_start"}
    ends = {e["session"]: e for e in events if e["type"] == "session_end"}
    (coding,) = [n for n, e in starts.items() if e["kind"] == "coding"]
    seconds = (_at(ends[coding]) - _at(starts[coding])).total_seconds()
    return seconds, _replay_seconds(files), whole


def _at(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["at"])


def _replay_seconds(files: WorkspaceFiles) -> float:
    lines = (files.logs / "bench.log").read_text().splitlines()
    stamps = {line.split(" ", 1)[1]: line.split(" ", 1)[0] for line in lines if line[:2].isdigit()}
    moved = next((t for text, t in stamps.items() if "phase → mr_phase_transition" in text), None)
    ran = next((t for text, t in stamps.items() if text.startswith("browser checks:")), None)
    if moved is None or ran is None:
        return 0.0
    clock = [datetime.strptime(t, "%H:%M:%S") for t in (moved, ran)]
    return (clock[1] - clock[0]).total_seconds()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results: dict[bool, list[tuple[float, float, float]]] = {True: [], False: []}
    for _ in range(args.runs):
        for browser in (False, True):
            results[browser].append(one_run(browser))
            coding, replay, whole = results[browser][-1]
            label = "browser   " if browser else "no browser"
            print(
                f"{label}: coding session {coding:.2f} s, replay {replay:.0f} s, run {whole:.1f} s"
            )
    for browser in (False, True):
        coding = statistics.median(r[0] for r in results[browser])
        whole = statistics.median(r[2] for r in results[browser])
        label = "browser   " if browser else "no browser"
        print(f"median {label}: coding session {coding:.2f} s, run {whole:.1f} s")


if __name__ == "__main__":
    main()

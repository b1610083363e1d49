"""What the harness sends the model, session by session, over a whole demo run.

Usage: ``.venv/bin/python -m benchmarks.session_requests [--model claude-sonnet-4-5]``

The demo project and spec are laid out as ``harness demo`` does, and the agent's
own phase machine (``run_to_end`` → ``run_session`` → SDK → bundled CLI) runs to
DONE with auto-accept against the embedded playbook model, started through
``LocalModel`` with request recording on. The model name is a real one, so the
CLI behaves as it would against Anthropic (it defers MCP tools behind ToolSearch
for real model names unless the tool set is exact). Printed per session: the
first request's bytes by part, the number of requests and their total bytes, as
the server received them; then the seed's first prompts for comparison.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.log import AgentLog
from agent.core.run.orchestrator import Run
from agent.core.runner import run_to_end
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig, run_session
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import ToolSurface
from agent.frontend.demo import prepare_demo
from agent.model.launcher import LocalModel
from agent.model.playbook import DEMO_PLAYBOOK
from agent.model.recording import RECORD_ENV, read_records
from agent.tracker.factory import make_tracker
from common.paths import WorkspaceFiles
from common.project_env import detect as detect_project_env
from common.schemas.agent_state import AgentState
from common.schemas.model_request import RequestRecord
from common.workspace.setup import load_info, prepare_workspace

SEED_FIRST_REQUEST_KB = (53, 93)
"""The seed's first requests, measured the same way (issue 7)."""
TARGET_KB = 30


@dataclass
class SessionFigures:
    """One session's requests, as the model server received them."""

    label: str
    surface: ToolSurface
    """The tools the harness asked the CLI to offer."""
    requests: list[RequestRecord] = field(default_factory=list)
    tool_calls: list[str] = field(default_factory=list)
    """The model's tool calls, in order, as the session's last request carries them."""

    @property
    def first(self) -> RequestRecord | None:
        """The session's first request with tools (the CLI's utility requests carry none)."""
        return next((r for r in self.requests if r.tool_names), None)


@dataclass
class Measurement:
    """A whole run: its sessions, how it ended and how long it took."""

    sessions: list[SessionFigures]
    outcome: str
    seconds: float


async def measure(model: str | None, root: Path) -> Measurement:
    """Run the demo to its end on ``model`` (``None``: the CLI's default) and collect requests."""
    record = root / "requests.jsonl"
    spec = prepare_demo(root / "demo", auto_accept=True)
    files = WorkspaceFiles(prepare_workspace(spec))
    info = load_info(files.root)
    log = AgentLog(io.StringIO())
    tracker = make_tracker(info, files, {}, os.environ, log=log)
    sessions: list[SessionFigures] = []

    async def recorded(
        label: str,
        system: str,
        prompt: str,
        config: SessionConfig,
        reports: SessionReports,
        log: AgentLog,
    ) -> SessionResult:
        before = len(read_records(record))
        figures = SessionFigures(label, reports.surface)
        sessions.append(figures)
        try:
            return await run_session(label, system, prompt, config, reports, log)
        finally:
            figures.requests = read_records(record)[before:]
            figures.tool_calls = list(figures.requests[-1].tool_calls) if figures.requests else []

    os.environ[RECORD_ENV] = str(record)  # the model process inherits it
    started = time.monotonic()
    try:
        async with LocalModel(DEMO_PLAYBOOK) as url:
            env = {
                "ANTHROPIC_BASE_URL": url,
                "ANTHROPIC_API_KEY": "local-playbook",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
            config = SessionConfig(
                project_dir=spec.project_dir, model=model, env=env, local_model=True
            )
            run = Run.create(
                files=files,
                info=info,
                state=AgentState(),
                tracker=tracker,
                sessions=config,
                log=log,
                project_env=detect_project_env(spec.project_dir, os.environ),
                session_runner=recorded,
            )
            outcome, reason = await run_to_end(run)
    finally:
        del os.environ[RECORD_ENV]
    elapsed = time.monotonic() - started
    return Measurement(sessions, outcome + (f" ({reason})" if reason else ""), elapsed)


def _kb(size: int) -> str:
    return f"{size / 1000:.1f}"


def report(measurement: Measurement) -> str:
    """The table, one row per session, and the comparison lines."""
    models = sorted({r.model for s in measurement.sessions for r in s.requests if r.tool_names})
    rows = [
        f"model {', '.join(models) or '?'}; "
        f"run {measurement.outcome} in {measurement.seconds:.1f} s",
        "",
        f"{'session':<28} {'first request KB: system':>24} {'messages':>9} {'tools':>6} "
        f"{'total':>6} {'requests':>9} {'all KB':>7}  tools offered / called",
    ]
    worst = 0
    for s in measurement.sessions:
        first = s.first
        if first is None:
            rows.append(f"{s.label:<28} (no request with tools)")
            continue
        worst = max(worst, first.total_bytes)
        everything = sum(r.total_bytes for r in s.requests)
        offered = len(first.tool_names)
        searched = "ToolSearch" in first.tool_names
        rows.append(
            f"{s.label:<28} {_kb(first.system_bytes):>24} {_kb(first.messages_bytes):>9} "
            f"{_kb(first.tools_bytes):>6} {_kb(first.total_bytes):>6} {len(s.requests):>9} "
            f"{_kb(everything):>7}  {offered}{' incl. ToolSearch' if searched else ''} / "
            f"{', '.join(s.tool_calls) or '-'}"
        )
    low, high = SEED_FIRST_REQUEST_KB
    rows += [
        "",
        f"largest first request: {_kb(worst)} KB (target ≤ {TARGET_KB} KB); "
        f"the seed's first requests: {low}–{high} KB",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model",
        default="claude-sonnet-4-5",
        help="model name the CLI sends ('' for the CLI's default, as the demo runs)",
    )
    args = parser.parse_args(argv)
    bin_dir = str(Path(sys.executable).parent)  # the model's Bash finds pytest, as in agent.process
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    root = Path(tempfile.mkdtemp(prefix="bench-requests-"))
    measurement = asyncio.run(measure(args.model or None, root))
    print(report(measurement))
    return 0 if measurement.outcome == "done" else 1


if __name__ == "__main__":
    sys.exit(main())

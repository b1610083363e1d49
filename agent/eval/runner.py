"""Running cases: each laid out afresh, its agent run to the end, then scored.

The agent runs as the daemon would start it (``python -m agent.process`` in its own
process session), without the daemon: an eval touches no running daemon. The
Claude credentials in this process's environment reach it the usual way (the
agent takes them out of its environment and gives them to its model proxy).
Cases run one after another: a machine's cores go to the agents' test runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from agent.eval.cases import Case
from agent.eval.figures import add, case_figures
from agent.eval.layout import lay_out
from agent.eval.score import score
from common.atomic import read_model_or_none
from common.errors import HarnessError
from common.harness_code import module_command, with_code_importable
from common.paths import WorkspaceFiles
from common.schemas.eval_report import CaseResult, EvalReport
from common.schemas.exit_status import AgentExit
from common.workspace.setup import prepare_workspace

Progress = Callable[[str], None]


async def run_agent(files: WorkspaceFiles, timeout_s: float) -> AgentExit | None:
    """Run the agent of ``files`` to its end; ``None`` when it had to be killed."""
    log = (files.logs / "eval.log").open("ab")
    env = with_code_importable(os.environ)
    try:
        process = await asyncio.create_subprocess_exec(
            *module_command("agent.process", "--workspace", str(files.root)),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
        try:
            await asyncio.wait_for(process.wait(), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            await process.wait()
            return None
    finally:
        log.close()
    return read_model_or_none(files.exit_status, AgentExit)


async def run_case(case: Case, model: str | None, work: Path) -> CaseResult:
    """Lay out, run and score one case; a harness error becomes an ``error`` result."""
    started = time.monotonic()
    result = CaseResult(name=case.name, language=case.spec.language, status="error")
    root = work / case.name
    root.mkdir(parents=True, exist_ok=True)
    try:
        spec = await asyncio.to_thread(lay_out, case, root, model)
        files = WorkspaceFiles(await asyncio.to_thread(prepare_workspace, spec))
        result.workspace = str(files.root)
        ended = await run_agent(files, case.spec.timeout_s)
        result.agent_outcome = ended.outcome if ended is not None else "killed"
        verdict = await score(case, spec.project_dir)
        result.figures = case_figures(files)
    except (HarnessError, OSError) as e:  # one case's trouble must not end the suite
        result.reason = str(e)
        result.wall_s = round(time.monotonic() - started, 1)
        return result
    result.hidden_passed, result.hidden_failed = verdict.tests_passed, verdict.tests_failed
    result.status = "passed" if verdict.passed else "failed"
    if ended is None:
        result.reason = f"the agent did not end within {case.spec.timeout_s} s"
    elif not verdict.passed:
        why = f" ({ended.reason})" if ended.reason else ""
        result.reason = f"hidden tests: {verdict.summary}; agent {ended.outcome}{why}"
    result.wall_s = round(time.monotonic() - started, 1)
    return result


def not_run(case: Case, reason: str) -> CaseResult:
    """A case left out of this run (for example: no model endpoint for it)."""
    return CaseResult(name=case.name, language=case.spec.language, status="not_run", reason=reason)


async def run_suite(
    cases: list[Case],
    model_label: str,
    plan: Callable[[Case], tuple[str | None, str | None]],
    work: Path,
    progress: Progress,
) -> EvalReport:
    """Run every case ``plan`` gives a model to (``(model, None)``), skip the others
    (``(None, reason)``), and add it all up."""
    report = EvalReport(model=model_label)
    started = time.monotonic()
    for case in cases:
        model, skipped = plan(case)
        if skipped is not None:
            result = not_run(case, skipped)
        else:
            progress(f"{case.name}: running")
            result = await run_case(case, model, work)
        progress(f"{case.name}: {result.status}" + (f" — {result.reason}" if result.reason else ""))
        report.cases.append(result)
        if result.status != "not_run":
            report.run += 1
            report.passed += result.status == "passed"
            report.total = add(report.total, result.figures)
    report.wall_s = round(time.monotonic() - started, 1)
    return report

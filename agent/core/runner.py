"""Driving the phase machine: one handler per phase until DONE, FAILED or a pause.

Apart from :mod:`agent.core.run.orchestrator` (what a handler works with) so that the
orchestrator and the stages do not import each other.
"""

from __future__ import annotations

from agent.core.run import phases
from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Outcome, Run
from agent.core.stages import HANDLERS
from agent.core.trace import spans
from common.errors import HarnessError, ProjectBrokenError
from common.schemas.agent_state import Phase


async def run_to_end(run: Run) -> tuple[Outcome, str]:
    """Drive the phase machine until DONE, FAILED or a pause.

    The decisions the tracker does not have yet (a write that failed, a kill before
    it) are written at the start, at every decision, and at the end
    (:mod:`agent.core.run.decision_record`).
    """
    await _record_decisions(run)
    outcome = await _phases(run)
    await _record_decisions(run)
    return outcome


async def _record_decisions(run: Run) -> None:
    if run.desk.recorder is not None:
        await run.desk.recorder.catch_up()


async def _phases(run: Run) -> tuple[Outcome, str]:
    while run.state.phase not in phases.TERMINAL:
        handler = HANDLERS[run.state.phase]
        try:
            with spans.phase(run.state.phase.value, sorted(run.state.issues)):
                await handler(run)
        # Each end is told once: by the ``phase → failed (…)`` line, or for a stop by
        # the agent's ``agent ended`` line (failure lines were printed twice).
        except StopRun as stop:
            return "stopped", str(stop)
        except ProjectBrokenError as e:
            with run.store.moving(Phase.FAILED, f"the project is broken: {e}") as state:
                state.failure = str(e)
                state.broken = True
        except HarnessError as e:
            with run.store.moving(Phase.FAILED, f"error in {run.state.phase.value}: {e}") as state:
                state.failure = str(e)
    if run.state.phase is Phase.DONE:
        return "done", ""
    return "failed", run.state.failure or "failed"

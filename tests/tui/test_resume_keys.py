"""``r`` resumes the selected stopped or failed agent; ``g`` runs an ended agent's spec
again in a new workspace; ``D`` removes every ended agent."""

from __future__ import annotations

from pathlib import Path

from common.schemas.agent_state import Phase
from common.schemas.daemon_state import AgentStatus
from common.schemas.spec import AgentSpec
from tests.tui.fakes import agent_info
from tests.tui.helpers import make_app, wait_until
from tui.modals.confirm import ConfirmScreen


async def test_r_resumes_a_failed_agent(workspace: Path) -> None:
    failed = agent_info("agent_1", workspace, status=AgentStatus.FAILED, phase=Phase.FAILED)
    app, link = make_app([failed])
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        await pilot.press("r")
        await wait_until(
            pilot,
            lambda: app.running.agents["agent_1"].status is AgentStatus.RUNNING,
            "the resumed agent to run",
        )
    assert link.calls == [("resume", "agent_1")]


async def test_r_on_a_running_or_done_agent_sends_nothing(workspace: Path) -> None:
    done = agent_info("agent_2", workspace, status=AgentStatus.DONE, phase=Phase.DONE)
    app, link = make_app([agent_info("agent_1", workspace), done])
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        app.notify = lambda message, **_: notes.append(str(message))  # type: ignore[method-assign]
        await pilot.press("r")
        await pilot.press("down")
        await pilot.press("r")
        await wait_until(pilot, lambda: len(notes) == 2, "two refusals")
    assert link.calls == []
    assert notes == [
        "agent_1 is running; only a stopped or failed agent resumes.",
        "agent_2 is done; only a stopped or failed agent resumes (g runs its spec again).",
    ]


async def test_shift_d_removes_every_ended_agent_after_asking(workspace: Path) -> None:
    agents = [
        agent_info("agent_1", workspace, status=AgentStatus.DONE, phase=Phase.DONE),
        agent_info("agent_2", workspace),
        agent_info("agent_3", workspace, status=AgentStatus.FAILED, phase=Phase.FAILED),
        agent_info("agent_4", workspace, status=AgentStatus.STOPPED),
    ]
    app, link = make_app(agents)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: len(app.running.agents) == 4, "the agents")
        await pilot.press("D")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the question")
        await pilot.press("y")
        await wait_until(pilot, lambda: list(app.running.agents) == ["agent_2"], "the removals")
    assert link.calls == [("remove", "agent_1"), ("remove", "agent_3"), ("remove", "agent_4")]


async def test_g_runs_a_done_agent_s_spec_again_in_a_new_workspace(workspace: Path) -> None:
    spec = AgentSpec(
        spec_file=workspace / "textkit-helpers.md",
        project_dir=workspace,
        target_branch="main",
        file_only_mode=True,
    )
    done = agent_info("agent_1", workspace, status=AgentStatus.DONE, phase=Phase.DONE)
    running = agent_info("agent_2", workspace)
    app, link = make_app(
        [done.model_copy(update={"spec": spec}), running.model_copy(update={"spec": spec})]
    )
    notes: list[str] = []
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.running.selected is not None, "a selected agent")
        app.notify = lambda message, **_: notes.append(str(message))  # type: ignore[method-assign]
        assert app.running.selected is not None
        assert app.running.selected.name == "agent_2", "the running agent is listed first"
        await pilot.press("g")  # agent_2 runs: nothing to run again
        await wait_until(pilot, lambda: len(notes) == 1, "the refusal")
        await pilot.press("down", "g")
        await wait_until(pilot, lambda: "agent_3" in app.running.agents, "the new run")
    assert link.calls == [("start fresh", str(spec.spec_file))]
    assert link.started == [spec]
    assert notes[0] == "agent_2 is running; only an ended agent runs again."
    assert "agent_3 started: textkit-helpers.md again, in a new workspace." in notes

"""A project venv that asks for other folders after project_verification stops the run.

A real :class:`Run` on a small repository with a real venv (``python -m venv``), the
layout keeper the agent gets, and the integrity guard the orchestrator calls before
and after every session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from agent.core.run import integrity
from agent.core.run.desk import StopRun
from agent.core.run.orchestrator import Run
from agent.sandbox import layout
from agent.sandbox.layout import LayoutKeeper
from agent.sandbox.protected import ProtectedPlaces
from common.atomic import read_model_or_none
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import ProjectVerificationCheckpoint
from common.schemas.sandbox_layout import SandboxLayout
from common.workspace import answer, checkpoints
from common.workspace.decisions import waits_for_person
from common.workspace.setup import set_auto_accept
from tests.core.runs import logged, make_run


@pytest.fixture
def applied() -> list[SandboxLayout]:
    """The layouts put into the (stand-in) live sandbox."""
    return []


@pytest.fixture
def run(tmp_path: Path, applied: list[SandboxLayout]) -> Run:
    run = make_run(tmp_path)
    project = run.spec.project_dir
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    places = ProtectedPlaces.of_this_process()
    run.layout_keeper = LayoutKeeper(project, places, False, applied.append)
    with run.store.editing() as state:
        state.sandbox_layout = run.layout_keeper.now()  # what project_verification records
    return run


def site(run: Run) -> Path:
    return next((run.spec.project_dir / ".venv" / "lib").glob("python*/site-packages"))


async def pending_guard(run: Run, decide: bool) -> ProjectVerificationCheckpoint:
    guarding = asyncio.create_task(integrity.guard(run, "before session coding #1"))
    for _ in range(200):
        if checkpoints.pending(run.files) is not None:
            break
        await asyncio.sleep(0.05)
    found = checkpoints.pending(run.files)
    assert isinstance(found, ProjectVerificationCheckpoint), logged(run)
    if decide:
        await asyncio.to_thread(answer.approve, run.files.root, None, None)
    else:
        await asyncio.to_thread(answer.reject, run.files.root, "who changed the venv?")
    await asyncio.wait_for(guarding, 10)
    return found


async def test_a_pth_naming_the_harness_home_changes_nothing_to_approve(
    run: Run, isolated_home: Path
) -> None:
    """Denied folders are never part of the layout: the attack has nothing to show."""
    (site(run) / "evil.pth").write_text(f"{isolated_home}\n/\n{Path.home()}\n")
    assert await integrity.problems(run) == []
    assert run.layout_keeper is not None
    left_out = run.layout_keeper.now().left_out
    assert len(left_out) == 3 and all("evil.pth" in note for note in left_out)


def test_each_folder_left_out_is_told_once(run: Run, isolated_home: Path) -> None:
    keeper = run.layout_keeper
    assert keeper is not None
    lines: list[str] = []
    keeper.log = lines.append
    (site(run) / "evil.pth").write_text(f"{isolated_home}\n")
    keeper.now()
    keeper.now()
    assert len(lines) == 1 and lines[0].startswith(f"sandbox: left out {isolated_home} (")
    assert "HARNESS_HOME" in lines[0]


async def test_a_new_folder_stops_at_a_checkpoint_and_approval_records_it(
    run: Run, tmp_path: Path, applied: list[SandboxLayout]
) -> None:
    sibling = tmp_path / "sibling-src"
    sibling.mkdir()
    (site(run) / "editable.pth").write_text(f"{sibling}\n")
    found = await pending_guard(run, decide=True)
    warnings = found.context.warnings
    assert "the sandbox layout the project's venv asks for changed" in warnings[0]
    assert f"    read-only folder added: {sibling}" in warnings
    assert run.state.sandbox_layout is not None and sibling in run.state.sandbox_layout.read_only
    saved = read_model_or_none(run.files.state, AgentState)
    assert saved is not None and saved.sandbox_layout == run.state.sandbox_layout
    assert applied == [run.state.sandbox_layout]
    assert await integrity.problems(run) == []


async def test_a_rejected_layout_change_pauses_and_keeps_the_record(
    run: Run, tmp_path: Path, applied: list[SandboxLayout]
) -> None:
    recorded = run.state.sandbox_layout
    other = tmp_path / "other-python" / "bin"
    other.mkdir(parents=True)
    (run.spec.project_dir / ".venv" / "pyvenv.cfg").write_text(f"home = {other}\n")
    with pytest.raises(StopRun, match="paused at project_verification"):
        await pending_guard(run, decide=False)
    assert run.state.sandbox_layout == recorded
    assert applied == []


async def test_a_changed_layout_waits_for_a_person_even_with_auto_accept_on(
    run: Run, tmp_path: Path, applied: list[SandboxLayout]
) -> None:
    """A changed sandbox plan always asks: auto-accept on does not approve it."""
    set_auto_accept(run.files.root, True)
    sibling = tmp_path / "sibling-src"
    sibling.mkdir()
    (site(run) / "editable.pth").write_text(f"{sibling}\n")
    found = await pending_guard(run, decide=True)
    assert f"    read-only folder added: {sibling}" in found.context.sandbox_changes
    assert waits_for_person(found) == [
        "a changed sandbox plan: the project's venv asks for other folders"
    ]
    assert "auto-accept never approves project_verification-" in logged(run)
    assert applied == [run.state.sandbox_layout]


def test_a_state_from_before_the_record_gets_one_at_start(run: Run) -> None:
    """An older ``.agent_state.json`` has no ``sandbox_layout``: read, then recorded."""
    old = run.state.model_dump(mode="json")
    del old["sandbox_layout"]
    state = AgentState.model_validate(old)
    assert state.sandbox_layout is None
    lines: list[str] = []
    keeper = run.layout_keeper
    assert keeper is not None
    found = layout.at_start(
        state.sandbox_layout,
        False,
        run.spec.project_dir,
        keeper.places,
        network=False,
        log=lines.append,
    )
    assert found == keeper.now()
    assert "sandbox layout recorded now (the state had none)" in lines[0]
    recorded = found.model_copy(update={"read_only": [Path("/srv/recorded")]})
    assert (
        layout.at_start(
            recorded, False, run.spec.project_dir, keeper.places, network=False, log=lines.append
        )
        is recorded
    )
    again = layout.at_start(
        recorded, True, run.spec.project_dir, keeper.places, network=False, log=lines.append
    )
    assert again == keeper.now()  # at project_verification the files are the person's


async def test_an_approved_venv_change_is_the_environment_the_gates_run_from_then(
    run: Run, tmp_path: Path
) -> None:
    """The gates run the recorded interpreter, never one a session put in its place; a
    person's approval of the project's venv as it is now (this checkpoint) re-records it."""
    project = run.spec.project_dir
    venv = project / ".venv"
    recorded = str(tmp_path / "envs" / "demo-1")
    run.project_env = dataclasses.replace(
        run.project_env, variables={"VIRTUAL_ENV": str(venv), "PATH": f"{venv}/bin"}
    )
    run.pin_environment(recorded)
    sibling = tmp_path / "sibling-src"
    sibling.mkdir()
    (site(run) / "editable.pth").write_text(f"{sibling}\n")

    found = await pending_guard(run, decide=True)

    assert recorded != str(venv.resolve())
    assert "the gates run the project's environment as it is now" in found.if_approved
    assert run.state.project_env_root == str(venv.resolve())
    assert run.project_env.root == run.gates.project_env.root == str(venv.resolve())
    assert f"the gates run {venv.resolve()} from now on (approved)" in logged(run)

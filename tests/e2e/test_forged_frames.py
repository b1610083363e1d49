"""A model's command that speaks for the CLI, through the real SDK, bundled CLI and sandbox.

The coding session's playbook (``data/forged-frames-playbook.json``) writes and runs
a project script, ``forge.py``: it finds the CLI (``/proc/*/cmdline``) and the
sandbox's first process, and writes into their ``/proc/<pid>/fd/1`` (the SDK's
pipe) a forged ``assistant`` message, a ``result`` with made-up figures and a
``control_request``, and into ``fd/0`` a forged user message. The policy allows
the command (a project script); the OS sandbox is the layer that must stop it.
Nothing may reach the SDK: no forged text in the agent's log or workspace, only
the honest figures, and the run still ends DONE with the honest work, a person
deciding every checkpoint.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from agent.frontend.demo import prepare_demo
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.workspace import answer, checkpoints, git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, log_text, next_pending, start_agent

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
FORGED_TAG = "FORGED-FRAME"
"""What every forged frame carries; forge.py builds it at run time, so only a frame
that got through can bring it into the harness's files."""
FORGED_FIGURE = "987654"
"""The forged result's turns, tokens and duration (its cost is 987.654)."""


def forging_project() -> tuple[Path, WorkspaceFiles]:
    root = Path(tempfile.mkdtemp(prefix="e2f-", dir="/tmp"))
    demo = prepare_demo(root / "demo", auto_accept=False)
    spec_file = root / "forged-frames-spec.md"
    shutil.copyfile(DATA / "forged-frames-spec.md", spec_file)
    spec = demo.model_copy(
        update={"spec_file": spec_file, "playbook": DATA / "forged-frames-playbook.json"}
    )
    return demo.project_dir, WorkspaceFiles(prepare_workspace(spec))


def harness_text(files: WorkspaceFiles) -> str:
    """Every text file the harness wrote for this run: logs, state, trace, checkpoints."""
    parts = []
    for path in sorted(files.root.rglob("*")):
        if path.is_file():
            parts.append(path.read_text(errors="replace"))
    return "\n".join(parts)


async def test_frames_forged_into_the_clis_pipes_never_reach_the_sdk() -> None:
    project, files = forging_project()
    agent = start_agent(files)
    answered = 0
    try:
        while agent.poll() is None:
            try:
                pending = await next_pending(files, agent, timeout=120)
            except AssertionError:
                break
            answer.approve(files.root, None, None, checkpoint_id=pending.id)
            answered += 1
        code = finish(agent)
    finally:
        if agent.poll() is None:
            agent.kill()
    state = read_model(files.state, AgentState)
    assert code == 0 and state.phase is Phase.DONE, log_text(files)

    # The script ran and found its targets; every write was refused by the kernel.
    outcome = json.loads((project / ".pytest_cache" / "forge.json").read_text())
    cli_targets = [key for key in outcome if not key.startswith("1/")]
    assert {"1/fd/0", "1/fd/1"} <= outcome.keys(), outcome
    assert any(key.endswith("/fd/1") for key in cli_targets), f"the CLI was not found: {outcome}"
    assert all(value.startswith("refused: ") for value in outcome.values()), outcome

    # Nothing forged reached the SDK: not the text, not the figures.
    written = harness_text(files)
    assert FORGED_TAG not in written
    assert FORGED_FIGURE not in written and "987.654" not in written
    ends = [line for line in written.splitlines() if "── session" in line and ": end" in line]
    assert ends and all(f"{FORGED_FIGURE} turns" not in line for line in ends), ends

    # The honest work, every checkpoint decided by the person.
    assert answered >= 3
    assert all(
        c.decision and c.decision.decided_by.startswith("cli:") for c in checkpoints.history(files)
    )
    committed = git.git(project, "show", "--name-only", "--format=", "HEAD").splitlines()
    assert "textkit/shout.py" in committed

"""A sandboxed gate sees the work tree as an overlay: it writes, and nothing reaches the tree.

Real bubblewrap in the very layout of a session's gates (:meth:`SessionSandbox.wrap`),
run by the real :class:`GateRunner`: the gate edits a committed file, swaps one for a
link into the harness's home, writes a cache and reads it back; the work tree is as it
was, the run says what the gate did, and the log says it was discarded.
"""

from __future__ import annotations

import io

import pytest

from agent.core.gates.gate_runs import GateRunner
from agent.core.log import AgentLog
from agent.sandbox import overlay
from agent.sandbox.binary import find_bwrap
from common.errors import SandboxError
from common.project_env import ProjectEnv
from common.workspace import git
from tests.sandbox.test_inside import Box, box  # noqa: F401 (the fixture)

BWRAP = find_bwrap()
pytestmark = pytest.mark.skipif(
    BWRAP is None or overlay.probe(BWRAP) is not None, reason="no overlay for the gates here"
)


async def test_a_gate_writes_in_its_overlay_and_the_tree_is_untouched(
    box: Box,  # noqa: F811 (the fixture)
) -> None:
    assert box.sandbox.overlays
    tested = git.worktree_fingerprint(box.project)
    out = io.StringIO()
    gates = GateRunner(
        ProjectEnv("PATH", None), AgentLog(out), box.sandbox.wrap, overlays=box.sandbox.overlays
    )
    command = (
        "echo forged >> README.md && "
        f"ln -s {box.harness_home}/decision.key key.txt && "
        "mkdir -p .pytest_cache/v && echo 1 > .pytest_cache/v/x && "
        "cat .pytest_cache/v/x README.md"
    )

    run = await gates.tests(box.project, command, None)

    assert run.passed, run.output_tail
    assert run.output_tail == "1\nhi\nforged"
    assert (box.project / "README.md").read_text() == "hi\n"
    assert not (box.project / "key.txt").is_symlink()
    assert not (box.project / ".pytest_cache").exists()
    assert git.worktree_fingerprint(box.project) == tested == run.tree
    assert run.writes is not None and run.writes.overlay and not run.writes.restored
    assert run.writes.changed == [
        "README.md: modified",
        f"key.txt: added (a link to {box.harness_home}/decision.key)",
    ]
    assert run.writes.caches == 1
    assert "all discarded with its overlay" in out.getvalue()


async def test_without_the_overlay_the_gate_runs_on_the_tree_and_it_is_put_back(
    box: Box,  # noqa: F811 (the fixture)
) -> None:
    gates = GateRunner(ProjectEnv("PATH", None), AgentLog(io.StringIO()), box.sandbox.wrap)

    run = await gates.tests(box.project, "echo forged >> README.md", None)

    assert (box.project / "README.md").read_text() == "hi\n"
    assert run.writes is not None and run.writes.restored and not run.writes.overlay
    assert run.writes.changed == ["README.md: modified"]


async def test_an_overlay_is_refused_where_the_probe_found_none(
    box: Box,  # noqa: F811 (the fixture)
) -> None:
    box.sandbox.overlays = False

    with pytest.raises(SandboxError, match="overlay"):
        box.sandbox.wrap(["true"], overlay=box.project.parent / "gate")

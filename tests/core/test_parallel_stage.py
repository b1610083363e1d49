"""The parallel stage through real git and the file tracker, the model stood in for by a
session runner that edits the slot's worktree and reports the issue done (as the model's
``report_issue_done`` would): who runs at once, what a dependent issue starts on, the
merges, one conflict redone, and the run going on to the merge request stage.

No sandbox and no gates here (the slot sandbox is not built yet): what is tried is the
scheduler and the slot steps, with the serial path's own stage code.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from agent.core.log import AgentLog
from agent.core.run.orchestrator import Run
from agent.core.session.result import SessionResult
from agent.core.session.session import SessionConfig
from agent.core.session.tools import DoneReport, SessionReports
from agent.core.stages import parallel
from agent.tracker.file import FileTracker
from common.atomic import read_model
from common.paths import WorkspaceFiles
from common.project_env import ProjectEnv
from common.schemas.agent_state import AgentState, Phase
from common.schemas.budget import Budgets
from common.schemas.issues import SET_ASIDE_LABEL, IssueDraft
from common.schemas.spec import AgentSpec
from common.workspace.setup import load_info, prepare_workspace, set_auto_accept
from tests.core.runs import sh_git

CALC = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"


class Model:
    """Edits the slot's worktree for each issue and counts the sessions running at once."""

    def __init__(
        self,
        edits: dict[int, list[tuple[str, str, str]]],
        slower: dict[int, float] | None = None,
        held: dict[int, asyncio.Event] | None = None,
    ) -> None:
        self.edits = edits
        """Issue → per session, (file, old text or "", new text)."""
        self.slower = slower or {}
        """Issue → seconds more each of its sessions takes (which merges first)."""
        self.held = held or {}
        """Issue → its sessions end only once the test sets this (still in its session
        whatever the machine's load)."""
        self.running = 0
        self.most = 0
        self.seen: dict[int, list[str]] = {}
        """Issue → calc.py as each of its sessions found it."""
        self.started: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        """Issue → set once a session of it started."""

    async def __call__(
        self,
        label: str,
        _system: str,
        _prompt: str,
        config: SessionConfig,
        reports: SessionReports,
        _log: AgentLog,
    ) -> SessionResult:
        found = re.match(r"coding #(\d+) \(session (\d+)\)", label)
        assert found, label
        iid, session = int(found[1]), int(found[2])
        tree = config.project_dir
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            self.seen.setdefault(iid, []).append((tree / "calc.py").read_text())
            self.started[iid].set()
            # The model's time: the others work meanwhile.
            await asyncio.sleep(0.3 + self.slower.get(iid, 0.0))
            if iid in self.held:
                await self.held[iid].wait()
            name, old, new = self.edits[iid][min(session, len(self.edits[iid])) - 1]
            path = tree / name
            text = path.read_text() if path.exists() else ""
            path.write_text(text.replace(old, new) if old else new)
        finally:
            self.running -= 1
        reports.done = DoneReport(issue_iid=iid, summary=f"issue {iid} done")
        return SessionResult(
            turns=1,
            cost_usd=0.0,
            input_tokens=1,
            output_tokens=1,
            duration_ms=300,
            denials=0,
            touched={name},
        )


async def parallel_run(tmp_path: Path, model: Model, drafts: list[IssueDraft]) -> Run:
    project = tmp_path / "project"
    project.mkdir()
    sh_git(project, "init", "-q", "-b", "main")
    (project / "calc.py").write_text(CALC)
    sh_git(project, "add", "calc.py")
    sh_git(project, "commit", "-q", "-m", "calc")
    spec_file = tmp_path / "spec.md"
    spec_file.write_text("# spec\n")
    spec = AgentSpec(spec_file=spec_file, project_dir=project, target_branch="main", parallel=3)
    files = WorkspaceFiles(prepare_workspace(spec))
    info = load_info(files.root)
    sh_git(project, "checkout", "-q", "-b", info.feature_branch)
    tracker = FileTracker(files.milestone)
    await tracker.ensure_milestone("calc", "the calc spec")
    await tracker.create_issues(drafts)
    set_auto_accept(files.root, True)
    return Run.create(
        files=files,
        info=info,
        state=AgentState(phase=Phase.ISSUE_SELECTION),
        tracker=tracker,
        sessions=SessionConfig(project_dir=project, model=None),
        log=AgentLog(io.StringIO()),
        project_env=ProjectEnv(kind="PATH", test_command=None),
        session_runner=model,
    )


def draft(title: str, depends_on: list[int] | None = None) -> IssueDraft:
    return IssueDraft(title=title, summary=title, depends_on=depends_on or [])


async def test_four_issues_three_at_once_the_dependent_one_on_top_of_its_dependency(
    tmp_path: Path,
) -> None:
    model = Model(
        {
            1: [("calc.py", "return 1", "return 10")],
            2: [("calc.py", "return 2", "return 20")],
            3: [("three.py", "", "from calc import one\nTHREE = one() + 2\n")],
            4: [("four.py", "", "FOUR = 4\n")],
        },
        held=dict.fromkeys((1, 2, 4), all_three := asyncio.Event()),
    )
    drafts = [draft("one"), draft("two"), draft("three", [1]), draft("four")]
    run = await parallel_run(tmp_path, model, drafts)

    async def release_once_all_three_started() -> None:
        # However slow opening a slot is here, none of the three ends before all began.
        await asyncio.gather(*(model.started[iid].wait() for iid in (1, 2, 4)))
        all_three.set()

    releasing = asyncio.create_task(release_once_all_three_started())
    await asyncio.wait_for(parallel.issue_slots(run), 60)
    await releasing

    project = run.spec.project_dir
    assert model.most == 3, "#1, #2 and #4 at once"
    assert "return 10" in model.seen[3][0], "#3 started on the feature branch with #1 merged"
    assert (project / "calc.py").read_text() == CALC.replace("1\n", "10\n").replace("2\n", "20\n")
    assert (project / "three.py").exists() and (project / "four.py").exists()
    issues = await run.tracker.list_issues()
    assert [issue.state for issue in issues] == ["closed"] * 4
    assert run.state.phase is Phase.MR_PHASE_TRANSITION
    assert run.state.issues == {}
    merges = sh_git(project, "log", "--merges", "--format=%s").splitlines()
    assert sorted(merges) == [
        f"Merge issue #{n} ({run.info.feature_branch}-issue-{n}) into {run.info.feature_branch}"
        for n in (1, 2, 3, 4)
    ]
    assert sh_git(project, "worktree", "list").count("\n") == 0, "every worktree removed"
    # Every commit the harness made is on the feature branch, and recorded as such.
    for sha in run.state.harness_commits:
        sh_git(project, "merge-base", "--is-ancestor", sha, run.info.feature_branch)
    assert len(run.state.harness_commits) == 8  # one feat commit and one merge per issue


async def test_two_issues_on_the_same_lines_one_is_redone_and_both_end_merged(
    tmp_path: Path,
) -> None:
    model = Model(
        {
            1: [("calc.py", "return 1", "return 10")],
            # Its first session conflicts with #1; redone on top of #1, it keeps #1's work.
            2: [("calc.py", "return 1", "return 100"), ("calc.py", "return 10", "return 110")],
        },
        slower={2: 0.5},  # #1 merges first
    )
    run = await parallel_run(tmp_path, model, [draft("one"), draft("two")])

    await asyncio.wait_for(parallel.issue_slots(run), 60)

    project = run.spec.project_dir
    assert [issue.state for issue in await run.tracker.list_issues()] == ["closed", "closed"]
    assert "return 110" in (project / "calc.py").read_text()
    assert len(model.seen[2]) == 2, "#2 was redone once"
    assert "return 10" in model.seen[2][1], "the redo started on the updated feature branch"
    log = run.log._stream
    assert isinstance(log, io.StringIO)
    assert "merging conflicts in calc.py (redo)" in log.getvalue()


async def test_stopped_while_slots_run_a_new_run_resumes_each_slot_once(tmp_path: Path) -> None:
    """The agent stopped in the middle (here: its task cancelled while three slots are
    in their sessions; the kill tests through the CLI are still to come): a new run
    from the state file resumes every slot, and each issue ends with one commit."""
    model = Model(
        {
            1: [("calc.py", "return 1", "return 10")],
            2: [("calc.py", "return 2", "return 20")],
            3: [("three.py", "", "THREE = 3\n")],
            4: [("four.py", "", "FOUR = 4\n")],
        },
        held={4: (four_released := asyncio.Event())},
    )
    drafts = [draft("one"), draft("two"), draft("three", [1]), draft("four")]
    first = await parallel_run(tmp_path, model, drafts)
    task = asyncio.create_task(parallel.issue_slots(first))
    await asyncio.wait_for(model.started[3].wait(), 30)  # #1 merged; #3 and #4 in sessions
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    left = read_model(first.files.state, AgentState)
    assert {3, 4} <= set(left.slots()), "stopped with slots in their sessions (#2 may be merging)"
    four_released.set()

    again = Run.create(
        files=first.files,
        info=first.info,
        state=left,
        tracker=first.tracker,
        sessions=SessionConfig(project_dir=first.spec.project_dir, model=None),
        log=AgentLog(io.StringIO()),
        project_env=ProjectEnv(kind="PATH", test_command=None),
        session_runner=model,
    )
    await asyncio.wait_for(parallel.issue_slots(again), 60)

    project = first.spec.project_dir
    assert [issue.state for issue in await again.tracker.list_issues()] == ["closed"] * 4
    subjects = sh_git(project, "log", "--no-merges", "--format=%s", "main..HEAD").splitlines()
    assert sorted(subjects) == [
        "feat(#1): one",
        "feat(#2): two",
        "feat(#3): three",
        "feat(#4): four",
    ]
    assert again.state.phase is Phase.MR_PHASE_TRANSITION and again.state.issues == {}


async def test_an_issue_set_aside_in_its_slot_leaves_no_worktree_and_keeps_its_branch(
    tmp_path: Path,
) -> None:
    """#2's sessions never report it done: after its one session allowed it is set aside
    (``needs-human``); its worktree goes with it, its branch stays, #1 is merged."""
    model = Model({1: [("calc.py", "return 1", "return 10")], 2: [("two.py", "", "X = 2\n")]})
    run = await parallel_run(tmp_path, model, [draft("one"), draft("two")])
    run.ledger.spec_budgets = Budgets(sessions_per_issue=1)

    async def never_done_for_two(*args: Any) -> SessionResult:
        result = await model(*args)
        reports = args[4]
        assert isinstance(reports, SessionReports)
        if reports.done is not None and reports.done.issue_iid == 2:
            reports.done = None
        return result

    run.sessions.runner = never_done_for_two

    await asyncio.wait_for(parallel.issue_slots(run), 60)

    project = run.spec.project_dir
    one, two = await run.tracker.list_issues()
    assert one.state == "closed" and two.state == "opened" and SET_ASIDE_LABEL in two.labels
    assert run.state.set_aside == [2] and run.state.issues == {}
    assert sh_git(project, "worktree", "list").count("\n") == 0, "no worktree left"
    assert sh_git(project, "rev-parse", "--verify", f"{run.info.feature_branch}-issue-2")

"""Issues in parallel that edit the same line, through the real CLI and daemon (issue 17).

``calc/units.py`` holds one line, ``UNITS = ["m"]``, and every issue adds its unit to
that line. Started side by side off the same feature branch, the first accepted issue
is merged; the next one's merge conflicts, and the harness resets its branch onto the
updated feature branch and sends it back with the conflict as its feedback. The
playbook's redo session is recognised by that feedback alone (its scenario matches
``could not merge issue #N``) and its edit only applies on top of another issue's unit,
so a merged redo shows the session got the feedback and worked on the updated branch.

Three issues on that line, answered one checkpoint at a time with ``harness approve``:
the redone two cannot both merge, and the one accepted second conflicts again, which
stops at a merge_conflict checkpoint (answered ``redo`` or ``set_aside``). A kill right
after a conflicted branch is reset must resume to one merge per issue, each issue's
work on the feature branch once. And two issues that git merges cleanly but that break
each other are caught by the run's last test run, fixed by a third issue in a slot.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from watchfiles import awatch

from agent.core.faultpoints import VARIABLE
from agent.core.trace.trace import read_trace, trace_path
from common.atomic import read_model, read_model_or_none
from common.paths import WorkspaceFiles
from common.schemas.agent_state import AgentState, Phase
from common.schemas.checkpoint import Checkpoint, MergeConflictCheckpoint
from common.schemas.exit_status import AgentExit
from common.schemas.issues import SET_ASIDE_LABEL
from common.schemas.milestone import FileMilestone
from common.schemas.spec import LOCAL_MODEL, AgentSpec
from common.schemas.trace import SessionStart
from common.workspace import answer, checkpoints, git
from common.workspace.setup import prepare_workspace
from tests.e2e.agents import finish, harness, log_text, start_agent
from tests.e2e.test_project_env import calc_project, local_spec

pytestmark = pytest.mark.slow
DATA = Path(__file__).parent / "data"
PLAYBOOK = DATA / "conflict-playbook.json"
UNITS = 'UNITS = ["m"]\n'
UNIT_OF = {"List grams": "g", "List seconds": "s", "List amperes": "A"}
"""Each issue's title and the unit it adds to the one line."""
UNIT_OF_ISSUE = dict(enumerate(UNIT_OF.values(), 1))
"""Each issue's unit by its number (the playbook proposes them in the spec's order)."""
CONFLICT_FEEDBACK = "could not merge issue #{iid} into the feature branch"


def units_project() -> Path:
    """The calc project with ``calc/units.py`` (the one line every issue edits) committed."""
    project = calc_project(Path(tempfile.mkdtemp(prefix="e2x-", dir="/tmp")))
    (project / "calc" / "units.py").write_text(UNITS)
    git.git(project, "add", "calc/units.py")
    git.git(project, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "units")
    return project


def spec_json(
    project: Path, spec_file: Path, parallel: int, playbook: Path = PLAYBOOK
) -> dict[str, object]:
    """A file-only spec on ``project`` played by ``playbook``."""
    return {
        "spec_file": str(spec_file),
        "project_dir": str(project),
        "target_branch": "main",
        "file_only_mode": True,
        "model": LOCAL_MODEL,
        "playbook": str(playbook),
        "parallel": parallel,
    }


def run_to_the_end(home: Path, spec: dict[str, object]) -> tuple[WorkspaceFiles, str]:
    """``harness run --auto-accept`` of ``spec`` to its end, a person approving what
    auto-accept leaves to one (a regression): its workspace and the agent's log."""
    specs = home / "specs.json"
    specs.write_text(json.dumps([spec]))
    started = harness("run", "--auto-accept", "--specs", f"@{specs}")
    assert started.returncode == 0, started.stdout + started.stderr
    workspace = WorkspaceFiles(next((Path(str(spec["project_dir"])) / ".claude-agent").iterdir()))
    asyncio.run(approve_what_waits(workspace))
    log = all_logs(workspace)
    assert "agent ended: done" in log, log[-3000:]
    return workspace, log


async def approve_what_waits(files: WorkspaceFiles) -> None:
    """Approve (the default) each checkpoint that waits for a person, until the agent
    run by the daemon ends."""
    while (pending := await next_checkpoint(files, has_ended(files))) is not None:
        answer.approve(files.root, None, None, checkpoint_id=pending.id)


def all_logs(workspace: WorkspaceFiles) -> str:
    return "\n".join(path.read_text() for path in sorted(workspace.logs.glob("*.log")))


def merged_order(log: str) -> list[int]:
    """The issues in the order their branches were merged into the feature branch."""
    return [int(iid) for iid in re.findall(r"issue #(\d+): merged into ", log)]


def coding_prompts(workspace: WorkspaceFiles, iid: int) -> list[str]:
    """The prompt of each coding session of issue ``iid``, in order, from the trace."""
    return [
        event.prompt
        for event in read_trace(trace_path(workspace))
        if isinstance(event, SessionStart)
        and re.fullmatch(rf"coding #{iid} \(session \d+\)", event.label)
    ]


def assert_all_merged_once(
    project: Path, workspace: WorkspaceFiles, titles: list[str], wip: int = 0, tests: int = 0
) -> str:
    """DONE; every issue closed, its feat commit (and ``wip`` work-in-progress commits
    in all) and one merge commit on the feature branch, its branch merged, no worktree
    left and the project's tests passing there (``tests`` of them; by default the base
    test and one per issue). Returns the feature branch's ``calc/units.py``."""
    state = read_model(workspace.state, AgentState)
    assert state.phase is Phase.DONE, state.failure
    milestone = read_model(workspace.milestone, FileMilestone)
    assert [(i.title, i.state) for i in milestone.issues] == [(t, "closed") for t in titles]
    for issue in milestone.issues:
        assert [note.kind for note in issue.notes].count("closure") == 1, issue.notes
    feature = git.current_branch(project)
    merges = git.git(project, "log", "--merges", "--format=%s", f"main..{feature}").splitlines()
    assert sorted(merges) == sorted(
        f"Merge issue #{iid} ({feature}-issue-{iid}) into {feature}"
        for iid in range(1, len(titles) + 1)
    )
    feats = git.git(project, "log", "--no-merges", "--format=%s", f"main..{feature}").splitlines()
    assert sum(1 for subject in feats if subject.startswith("wip(")) == wip, feats
    done = sorted(subject for subject in feats if not subject.startswith("wip("))
    assert done == sorted(f"feat(#{i}): {t}" for i, t in enumerate(titles, 1))
    merged = git.git(project, "branch", "--merged", feature, "--format=%(refname:short)")
    for iid in range(1, len(titles) + 1):
        assert f"{feature}-issue-{iid}" in merged.splitlines(), merged
    assert git.git(project, "worktree", "list").count("\n") == 0, "every worktree removed"
    ran = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert f"{tests or len(titles) + 1} passed" in ran.stdout, ran.stdout
    return (project / "calc" / "units.py").read_text()


@dataclass(frozen=True)
class Ran:
    """A run through the CLI that ended: its project, workspace and the agent's log."""

    project: Path
    workspace: WorkspaceFiles
    log: str


@pytest.fixture(scope="module")
def two_on_one_line() -> Iterator[Ran]:
    """Two issues on the same line with ``"parallel": 2`` and auto-accept, run once by
    ``harness run --wait`` (a daemon in a ``HARNESS_HOME`` of this module's own) for the
    tests that look at it."""
    home = Path(tempfile.mkdtemp(prefix="hx", dir="/tmp"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HARNESS_HOME", str(home))
        try:
            project = units_project()
            spec = spec_json(project, DATA / "conflict-spec.md", 2)
            yield Ran(project, *run_to_the_end(home, spec))
        finally:
            harness("daemon", "stop")


def test_two_issues_on_the_same_line_one_is_redone_on_top_of_the_other(
    two_on_one_line: Ran,
) -> None:
    project, workspace, log = (
        two_on_one_line.project,
        two_on_one_line.workspace,
        two_on_one_line.log,
    )
    assert re.search(r"slots: #1, #2 running \(at most 2\)", log), log
    redone = [int(iid) for iid in re.findall(r"issue #(\d+): merging conflicts in ", log)]
    assert len(redone) == 1, log
    (second,) = redone
    first = 3 - second
    assert f"issue #{second}: merging conflicts in calc/units.py (redo)" in log
    assert merged_order(log) == [first, second]

    titles = ["List grams", "List seconds"]
    units = assert_all_merged_once(project, workspace, titles)
    first_unit, second_unit = UNIT_OF_ISSUE[first], UNIT_OF_ISSUE[second]
    # The redo inserted its unit after "m", on top of the first issue's unit.
    assert units == f'UNITS = ["m", "{second_unit}", "{first_unit}"]\n'

    before, redo = coding_prompts(workspace, second)
    feedback = CONFLICT_FEEDBACK.format(iid=second)
    assert feedback not in before
    assert feedback in redo and "FEEDBACK ON THE PREVIOUS ATTEMPT" in redo
    assert "> - calc/units.py" in redo, redo
    assert f'+UNITS = ["m", "{first_unit}"]' in redo, "the conflicted diff: the other's line"
    (only,) = coding_prompts(workspace, first)
    assert "could not merge" not in only


def test_a_redone_issue_runs_the_projects_tests_in_its_worktree(two_on_one_line: Ran) -> None:
    runs = re.findall(r"^\S+ tests: (.*)$", two_on_one_line.log, re.MULTILINE)
    assert len(runs) >= 7, runs  # the project, two slots' baselines and gates, a redo's two
    assert all(re.fullmatch(r"\d+ passed in .*", run) for run in runs), runs


@pytest.mark.parametrize("point", ["slot.restarted:1"])
def test_killed_while_a_conflicted_issue_is_sent_back_it_resumes_once(
    point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = units_project()
    spec = local_spec(project, DATA / "conflict-spec.md", PLAYBOOK, parallel=2)
    files = WorkspaceFiles(prepare_workspace(spec))
    monkeypatch.setenv(VARIABLE, point)
    killed = finish(start_agent(files), timeout=180)
    assert killed == -9, f"{point} was not reached (exit {killed}):\n{log_text(files)}"

    monkeypatch.delenv(VARIABLE)
    assert finish(start_agent(files), timeout=180) == 0, log_text(files)

    units = assert_all_merged_once(project, files, ["List grams", "List seconds"])
    assert sorted(units.removeprefix("UNITS = [").removesuffix("]\n").split(", ")) == [
        '"g"',
        '"m"',
        '"s"',
    ]
    assert units.startswith('UNITS = ["m", '), units


async def next_checkpoint(
    files: WorkspaceFiles, ended: Callable[[], bool], timeout: float = 90.0
) -> Checkpoint | None:
    """The next checkpoint waiting for a person, or ``None`` once the agent has ended."""

    def look() -> tuple[bool, Checkpoint | None]:
        found = checkpoints.pending(files)
        if found is not None:
            return True, found
        return ended(), None

    async def watch() -> Checkpoint | None:
        async for _ in awatch(
            files.root, debounce=20, step=5, rust_timeout=300, yield_on_timeout=True
        ):
            seen, found = look()
            if seen:
                return found
        raise AssertionError("watch ended")

    seen, found = look()
    return found if seen else await asyncio.wait_for(watch(), timeout)


def has_ended(files: WorkspaceFiles) -> Callable[[], bool]:
    """Whether the agent (run by the daemon) has written its exit status and its process
    is gone: from then on the daemon's view (``harness status``) says how it ended. Its
    log's last line comes a moment before both, and a fast ``harness status`` can ask
    in between."""

    def ended() -> bool:
        exited = read_model_or_none(files.exit_status, AgentExit)
        return exited is not None and not Path(f"/proc/{exited.pid}").exists()

    return ended


@pytest.mark.parametrize("choice", ["redo", "set_aside"])
async def test_a_second_conflict_stops_at_a_checkpoint_a_person_answers(
    choice: str, daemon_home: Path
) -> None:
    """Three issues on one line, every checkpoint answered by a person (merge_conflict
    with ``harness checkpoint`` and ``harness approve --choice``): the first accepted is
    merged, the other two conflict and are redone on top of it; of those, the one
    accepted second conflicts again (the other was merged meanwhile) and waits at a
    merge_conflict checkpoint that shows the issue, the file and the diff."""
    project = units_project()
    spec = spec_json(project, DATA / "conflict3-spec.md", 3)
    started = harness("run", "--specs", json.dumps([spec]))
    assert started.returncode == 0, started.stderr
    files = WorkspaceFiles(next((project / ".claude-agent").iterdir()))

    asked: list[MergeConflictCheckpoint] = []
    shown = full = ""
    while (pending := await next_checkpoint(files, has_ended(files))) is not None:
        if isinstance(pending, MergeConflictCheckpoint):
            asked.append(pending)
            shown = harness("checkpoint", "agent_1").stdout
            full = harness("checkpoint", "agent_1", "--full").stdout
            answered = harness("approve", "agent_1", "--checkpoint", pending.id, "--choice", choice)
            assert answered.returncode == 0, answered.stdout + answered.stderr
        else:  # the others by the CLI's own answer path, in this process (~3 s a command)
            answer.approve(files.root, None, None, checkpoint_id=pending.id)

    log = all_logs(files)
    assert re.search(r"slots: #1, #2, #3 running \(at most 3\)", log), log
    conflicts = re.findall(r"issue #(\d+): merging conflicts in calc/units.py \((\w+)\)", log)
    assert len(conflicts) == 3 and [verdict for _, verdict in conflicts] == [
        "redo",
        "redo",
        "ask",
    ], conflicts
    (conflict,) = asked
    iid = conflict.context.issue_iid
    redone = {int(i) for i, _ in conflicts[:2]}
    assert int(conflicts[2][0]) == iid and iid in redone
    (first,) = {1, 2, 3} - redone
    (other,) = redone - {iid}
    title = conflict.context.issue_title
    unit = UNIT_OF[title]
    assert merged_order(log)[:2] == [first, other]
    assert conflict.context.conflicts == ["calc/units.py"]
    assert conflict.context.conflicts_so_far == 2
    merged_line = f'UNITS = ["m", "{UNIT_OF_ISSUE[other]}", "{UNIT_OF_ISSUE[first]}"]'
    redone_line = f'UNITS = ["m", "{unit}", "{UNIT_OF_ISSUE[first]}"]'
    assert merged_line in conflict.context.diff.text
    assert redone_line in conflict.context.diff.text

    assert f"MERGE_CONFLICT  ({conflict.id})" in shown, shown
    assert f"Issue #{iid}: {title}" in shown
    assert "✗ calc/units.py" in shown
    assert "harness approve agent_1 --choice redo|retry|set_aside" in shown
    assert merged_line in full and redone_line in full, full

    titles = ["List grams", "List seconds", "List amperes"]
    if choice == "redo":
        units = assert_all_merged_once(project, files, titles)
        assert merged_order(log) == [first, other, iid]
        assert len(coding_prompts(files, iid)) == 3
        assert CONFLICT_FEEDBACK.format(iid=iid) in coding_prompts(files, iid)[-1]
        assert units == (
            f'UNITS = ["m", "{unit}", "{UNIT_OF_ISSUE[other]}", "{UNIT_OF_ISSUE[first]}"]\n'
        )
        return

    # set_aside: the others are merged, the issue waits for a person with its branch kept.
    status = harness("status", "agent_1").stdout
    assert re.search(rf"exit: +partial: #{iid} set aside", status), status
    state = read_model(files.state, AgentState)
    assert state.phase is Phase.DONE and state.set_aside == [iid], state
    milestone = read_model(files.milestone, FileMilestone)
    for issue in milestone.issues:
        aside = issue.iid == iid
        assert (issue.state, SET_ASIDE_LABEL in issue.labels) == (
            ("opened", True) if aside else ("closed", False)
        ), issue
    feature = git.current_branch(project)
    kept = git.git(project, "log", "--format=%s", f"{feature}..{feature}-issue-{iid}")
    assert kept.splitlines() == [f"feat(#{iid}): {title}"], "its branch keeps its work"
    merges = git.git(project, "log", "--merges", "--format=%s", f"main..{feature}").splitlines()
    assert len(merges) == 2 and all(f"#{iid} " not in merge for merge in merges), merges
    assert git.git(project, "worktree", "list").count("\n") == 0, "every worktree removed"
    assert (project / "calc" / "units.py").read_text() == merged_line + "\n"


def dropping_playbook(folder: Path) -> Path:
    """The conflict playbook (two issues) whose redo sessions settle the conflict by
    writing the line with their own unit only, dropping the other issue's (a careless or
    hostile redo); told by the harness which test that broke, the next session writes
    the line with both."""
    book = json.loads(PLAYBOOK.read_text())
    other = {"List grams": "seconds", "List seconds": "grams"}
    fixes = []
    for scenario in book["scenarios"]:
        title = re.fullmatch(r"coding: (List \w+) \(redo after a conflict\)", scenario["name"])
        if title is None or title.group(1) not in other:
            continue
        unit, theirs = UNIT_OF[title.group(1)], other[title.group(1)]
        scenario["steps"][1]["tool_uses"][0] = {
            "name": "Write",
            "input": {
                "file_path": "{{project_dir}}/calc/units.py",
                "content": f'UNITS = ["m", "{unit}"]\n',
            },
        }
        fix = copy.deepcopy(scenario)
        fix["name"] = f"coding: {title.group(1)} (its redo broke test_{theirs})"
        fix["match"] = (
            rf"Session: coding issue #\d+: {title.group(1)}[\s\S]*"
            rf"fail now: tests/test_{theirs}\.py::test_{theirs}"
        )
        both = f'UNITS = ["m", "{UNIT_OF["List " + theirs]}", "{unit}"]\n'
        fix["steps"][1]["tool_uses"][0]["input"]["content"] = both
        fixes.append(fix)
    book["scenarios"] = [*fixes, *book["scenarios"]]
    path = folder / "dropping-playbook.json"
    path.write_text(json.dumps(book))
    return path


def test_a_redo_that_drops_the_other_issues_work_is_stopped_by_its_gate(
    daemon_home: Path,
) -> None:
    """The redone session writes the line anew with only its own unit: the first issue's
    test fails in its worktree, so the gate stops it (a regression, the harness's
    feedback names the test), and the session after that keeps both units."""
    project = units_project()
    playbook = dropping_playbook(daemon_home)
    spec = spec_json(project, DATA / "conflict-spec.md", 2, playbook)

    workspace, log = run_to_the_end(daemon_home, spec)

    (second,) = [int(iid) for iid in re.findall(r"issue #(\d+): merging conflicts in ", log)]
    first = 3 - second
    first_test = f"test_{['grams', 'seconds'][first - 1]}"
    # The dropped line stays in the issue's history as a wip commit, undone by its feat.
    units = assert_all_merged_once(project, workspace, ["List grams", "List seconds"], wip=1)
    assert units == f'UNITS = ["m", "{UNIT_OF_ISSUE[first]}", "{UNIT_OF_ISSUE[second]}"]\n'
    _, dropped, after = coding_prompts(workspace, second)
    assert CONFLICT_FEEDBACK.format(iid=second) in dropped
    assert f"fail now: tests/{first_test}.py::{first_test}" in after, after
    assert f"issue #{second}: regression (regression)" in log


async def answer_until_it_exits(files: WorkspaceFiles, agent: subprocess.Popen[bytes]) -> int:
    """Approve every checkpoint of ``agent`` (merge_conflict: ``redo``) until it exits;
    its exit status."""
    while (pending := await next_checkpoint(files, lambda: agent.poll() is not None)) is not None:
        redo = "redo" if isinstance(pending, MergeConflictCheckpoint) else None
        answer.approve(files.root, redo, None, checkpoint_id=pending.id)
    return finish(agent, timeout=60)


@pytest.mark.parametrize("point", ["merge_conflict.decided:1", "slot.restarted:3"])
async def test_killed_after_a_person_chose_redo_the_issue_is_redone_once(
    point: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed once the merge_conflict decision is taken, or once its redo has reset the
    branch (the third reset: two redos came first), the resumed agent asks nothing again:
    the recorded decision is carried out and all three issues are merged once each."""
    project = units_project()
    spec = local_spec(project, DATA / "conflict3-spec.md", PLAYBOOK, parallel=3)
    by_a_person = AgentSpec.model_validate({**spec.model_dump(), "auto_accept": False})
    files = WorkspaceFiles(prepare_workspace(by_a_person))
    monkeypatch.setenv(VARIABLE, point)
    agent = start_agent(files)
    try:
        killed = await answer_until_it_exits(files, agent)
        assert killed == -9, f"{point} was not reached (exit {killed}):\n{log_text(files)}"

        monkeypatch.delenv(VARIABLE)
        agent = start_agent(files)
        assert await answer_until_it_exits(files, agent) == 0, log_text(files)
    finally:
        if agent.poll() is None:
            agent.kill()

    titles = ["List grams", "List seconds", "List amperes"]
    units = assert_all_merged_once(project, files, titles)
    assert sorted(units.removeprefix("UNITS = [").removesuffix("]\n").split(", ")) == sorted(
        f'"{unit}"' for unit in ["m", *UNIT_OF_ISSUE.values()]
    )
    asked = [c for c in checkpoints.history(files) if isinstance(c, MergeConflictCheckpoint)]
    assert len(asked) == 1, [c.id for c in asked]
    log = all_logs(files)
    assert f"resuming checkpoint {asked[0].id} (decided)" in log, log[-3000:]
    if point.startswith("slot.restarted"):
        assert "its branch was reset by a redo cut short; merging again" in log


def test_two_issues_that_merge_cleanly_but_break_each_other_are_fixed_by_a_third(
    daemon_home: Path,
) -> None:
    """No conflict git can see: "Count the units" writes ``COUNT = 1`` in its own file,
    true on its branch; merged next to "List grams" it is wrong. The merges succeed, the
    run's last test run fails, and the regression is filed as a third issue that a slot
    works and merges; then the tests pass on the feature branch."""
    project = units_project()
    spec = spec_json(project, DATA / "conflict-count-spec.md", 2)

    workspace, log = run_to_the_end(daemon_home, spec)

    assert "merging conflicts" not in log
    assert re.search(r"final tests: 1 failed, 2 passed", log), log[-3000:]
    assert "regression filed as issue #3, worked on now" in log
    titles = [
        "List grams",
        "Count the units",
        "Regression before the merge request: tests/test_count.py::test_count",
    ]
    units = assert_all_merged_once(project, workspace, titles, tests=3)  # the fix adds none
    assert units == 'UNITS = ["m", "g"]\n'
    count = (project / "calc" / "count.py").read_text()
    assert count == "from calc.units import UNITS\n\nCOUNT = len(UNITS)\n"

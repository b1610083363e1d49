"""After a coding session: the gates on the tree the commit will hold, then the outbound
review of that same tree.

Why in this order (issue 26, finding 1): a gate runs code the model wrote. The review
used to run first and the commit to take the tree as the gates left it, so a
``conftest.py`` that passed the tests and then edited a source file, swapped a reviewed
text file for a link into ``HARNESS_HOME`` and rewrote itself had code no gate ran
committed, past a review that had seen a plain file. Now every gate sees the tree as it
is after the session and cannot change it (:meth:`agent.core.gates.gate_runs.GateRunner.guarded`):
what the gates ran on, the review judges and the commit holds (checked by
:func:`agent.core.git.commits.untested_paths`). What a gate did change is a finding the
person sees at issue_closure, which then always waits for a person.

Also a finding: an ignored file the session wrote that the gates run (code, a runner's
configuration, anything under the environment; :func:`hidden_writes.runs_in_gates`) and
an environment that no longer leads to the recorded one (:func:`slot_links.moved`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from agent.core.gates import gate_writes
from agent.core.git import agit, commits, hidden_writes
from agent.core.issue import slot_baselines, slot_links
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from agent.core.stages import held_files
from common.schemas.gates import TestRun
from common.schemas.outbound import FlaggedFile
from common.workspace import git, pathnames

HIDDEN_SHOWN = 20


@dataclass(frozen=True)
class GatedSession:
    """What the gates and the review made of a session's work."""

    files: list[str]
    """The session's files to commit: the review found nothing to hold."""
    held: list[FlaggedFile]
    """Its files the review holds for a person."""
    new_files: set[str]
    """Of :attr:`files`, those git does not know yet (for the commit's Tests line)."""
    kept_out: list[commits.KeptOut]
    baseline: TestRun | None
    tests: TestRun | None
    checks: dict[str, TestRun]
    """Every quality check's run (name → run)."""
    tested: str
    """The tree every gate ran on (a fingerprint): the commit must hold it."""
    findings: list[str] = field(default_factory=list)
    """What a person must see before the issue closes (see the module)."""
    ignored: list[str] = field(default_factory=list)
    """Files the gates wrote that the project ignores, by folder."""


async def gate_session(
    run: Run, seat: Seat, touched: set[str], dirty_before: set[str]
) -> GatedSession:
    """The gates, then the review, on the seat's work tree as the session left it."""
    project = seat.work_tree
    changes = await agit.session_changes(project, touched, dirty_before)
    places = environment_places(run)
    started_ns = seat.work().pre_session_started_ns
    root = run.project_env.root
    hidden, runnable = await agit.off_loop(_hidden_writes, project, started_ns, places, root)
    changes.kept_out.extend(hidden)
    if changes.kept_out:
        run.log(commits.kept_out_line(changes.kept_out))
    baseline = await slot_baselines.settle(run, seat)  # a slot's: measured beside the session
    tests = await seat.tests()
    checks = await seat.checks()
    runs = {"tests": tests, **{f"check {name}": check for name, check in checks.items()}}
    trees = [found.tree for found in runs.values() if found is not None and found.tree]
    tested = trees[0] if trees else await agit.off_loop(git.worktree_fingerprint, project)
    findings = [*gate_lines(runs), *runnable]
    findings += await agit.off_loop(slot_links.moved, project, places, run.project_env.root)
    for line in findings:
        run.log(f"for a person at issue_closure: {line}")
    # After the gates: the review judges the tree they ran on, which the commit holds.
    files, held = await held_files.hold(run, changes.files, project)
    new_files = set(files) & await agit.untracked(project)
    return GatedSession(
        files=files,
        held=held,
        new_files=new_files,
        kept_out=changes.kept_out,
        baseline=baseline,
        tests=tests,
        checks=checks,
        tested=tested,
        findings=findings,
        ignored=ignored_lines(runs),
    )


def environment_places(run: Run) -> tuple[Path, ...]:
    """The project environment's folders, relative to any work tree (``.venv``)."""
    project = run.spec.project_dir
    return tuple(folder.relative_to(project) for folder in run.project_env.folders_in(project))


def gate_lines(runs: dict[str, TestRun | None]) -> list[str]:
    """What each gate changed in the tree it ran on, one line each (pure)."""
    return [
        f"the {name} gate changed the tested tree (not committed): {line}"
        for name, found in runs.items()
        if found is not None and found.writes is not None
        for line in found.writes.changed
    ]


def ignored_lines(runs: dict[str, TestRun | None]) -> list[str]:
    """The ignored files each gate wrote, by folder, once each (pure)."""
    lines = [
        line
        for found in runs.values()
        if found is not None and found.writes is not None
        for line in found.writes.ignored
    ]
    return list(dict.fromkeys(lines))


def _hidden_writes(
    project: Path, since_ns: int | None, places: tuple[Path, ...], root: str | None = None
) -> tuple[list[commits.KeptOut], list[str]]:
    """The session's writes git ignores, as kept-out paths (at most ``HIDDEN_SHOWN``
    named), and the lines for those the gates run (every one: a person decides).

    Never silently accepted: the gate ran with them, the reviewer would not see them.
    The harness's own link to the recorded environment (a slot's ``.venv``, made just
    before the session, within the clock's tick) is not the session's write.
    """
    if since_ns is None:
        return [], []
    raws = [
        raw
        for raw in hidden_writes.written_since(project, since_ns)
        if not _own_link(project, raw, places, root)
    ]
    env = frozenset(str(place).encode() for place in places)
    runnable: list[str] = []
    for raw in raws:
        why = hidden_writes.runs_in_gates(project, raw, env)
        if why is not None:
            runnable.append(f"{pathnames.shown(raw)}: {why}")
    items = [commits.KeptOut(pathnames.shown(raw), hidden_writes.REASON) for raw in raws]
    if len(items) > HIDDEN_SHOWN:
        rest = len(items) - HIDDEN_SHOWN
        more = commits.KeptOut(f"… and {rest} more file(s)", hidden_writes.REASON)
        items = [*items[:HIDDEN_SHOWN], more]
    return items, gate_writes.cut(runnable, "file(s) the gates run")


def _own_link(project: Path, raw: bytes, places: tuple[Path, ...], root: str | None) -> bool:
    """Whether ``raw`` is an environment place that is a link to the recorded one."""
    path = project / os.fsdecode(raw)
    if root is None or Path(os.fsdecode(raw)) not in places or not path.is_symlink():
        return False
    return path.resolve() == Path(root)

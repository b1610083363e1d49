"""ISSUE_CLOSURE: a person reviews the issue's diff, its tests and the gates' findings;
an approved issue is closed (in a slot: merged first, then closed).

Apart from the coding stage because it is a phase of its own: it gathers what the person
sees (:func:`closure_checkpoint`), asks, and applies the answer (the flagged files' choices,
the closure note, the tracker), while the coding stage decides what a session's work is.
"""

from __future__ import annotations

from pathlib import Path

from agent.core import faultpoints
from agent.core.git import agit, closure_changes, diff_excerpt
from agent.core.issue.seat import Seat
from agent.core.issue.slots import step
from agent.core.run import integrity
from agent.core.run.orchestrator import Run
from agent.core.stages import browser_check, held_files
from agent.core.stages.aside import spend_of
from agent.core.words import model_words
from common.schemas.agent_state import Phase
from common.schemas.checkpoint import (
    Checkpoint,
    CheckpointType,
    ClosureDecision,
    DiffExcerpt,
    IssueClosureCheckpoint,
    IssueClosureContext,
)
from common.schemas.issue_slot import SlotStep
from common.schemas.issue_work import IssueWork
from common.workspace import checkpoints, git, pathnames
from common.workspace.render import since_rejection_summary


async def issue_closure(run: Run, seat: Seat | None = None) -> None:
    """The human reviews the issue's diff and tests; approved issues are closed.

    In a slot, an approved issue moves on to its merge (:mod:`agent.core.stages.parallel`):
    it is closed once its branch is in the feature branch, with the note prepared here.
    """
    seat = seat or Seat(run)
    iid = seat.work().iid

    async def build(checkpoint_id: str) -> Checkpoint:
        return await closure_checkpoint(run, seat, checkpoint_id)

    await integrity.guard(run, "before issue_closure")
    checkpoint = await run.desk.ask(CheckpointType.ISSUE_CLOSURE, build, issue=seat.iid)
    decision = checkpoint.decision
    assert decision is not None
    if not decision.approved:
        with seat.moving(Phase.CODING, "closure rejected") as state:
            seat.work(state).feedback = (
                decision.reason or "The reviewer rejected the implementation."
            )
            seat.work(state).feedback_source = "human"
        return
    assert isinstance(checkpoint, IssueClosureCheckpoint)
    assert isinstance(decision, ClosureDecision)
    approved, excluded = await held_files.apply_choices(run, checkpoint, seat)
    browser_check.keep_check(run, seat.work())
    note = closure_note(run, seat.work(), decision, approved, excluded)
    if seat.in_slot:
        with run.store.editing() as state:
            seat.work(state).closure_note = note
            step(seat.work(state), SlotStep.MERGING)
        run.log(f"issue #{iid}: accepted, to be merged into {run.info.feature_branch}")
        return
    await run.tracker.add_note(iid, "closure", note)
    faultpoints.reached("issue_closure.noted")
    await run.tracker.close_issue(iid)
    faultpoints.reached("issue_closure.closed")
    run.store.leave_issue(f"issue #{iid} closed")


async def closure_checkpoint(run: Run, seat: Seat, checkpoint_id: str) -> IssueClosureCheckpoint:
    """What the person is asked at the issue's closure: the diff of its commits (cut where
    the person is told, with the range that shows it whole), its tests and checks, the
    files held out of its commits, the gates' findings, what changed since a rejection."""
    work = seat.work()
    iid = work.iid
    project = seat.work_tree
    issue = await run.tracker.get_issue(iid)
    shas = work.commits
    last = shas[-1]
    span = f"{shas[0]}~1..{last}"
    excerpt = await agit.off_loop(diff_excerpt.excerpt, project, span)
    shown = excerpt or DiffExcerpt(stat="", text="", range=span)
    flagged = await agit.off_loop(held_files.still_changed, project, work.held)
    over_budget = await held_files.over_budget(run, span, project)
    # Asked again after a person's reject: what the sessions since then changed.
    changes = await agit.off_loop(
        closure_changes.since_rejection, project, checkpoints.history(run.files), iid, last
    )
    what_happened = _what_happened(work, len(flagged), [f.reason for f in over_budget])
    if changes is not None:
        what_happened.append(since_rejection_summary(changes))
    return IssueClosureCheckpoint(
        id=checkpoint_id,
        what_happened=what_happened,
        to_decide=f"Close issue #{iid}?",
        if_approved=f"Issue #{iid} is closed and the next issue is selected",
        if_rejected="Another session works on the issue with your feedback",
        context=IssueClosureContext(
            issue_iid=iid,
            issue_title=issue.title,
            commit_sha=last,
            commit_message=await agit.git(project, "log", "-1", "--format=%B", last),
            files_changed=await _files_changed(project, span),
            diff_stat=shown.stat,
            diff=shown.text,
            diff_range=span,
            diff_cut_at=shown.cut_at,
            diff_long_lines=shown.long_lines,
            test_run=work.tests,
            model_summary=work.done_summary or "",
            gate_refusals=work.gate_refusals,
            checks=run.state.last_checks,
            kept_out=work.kept_out,
            gate_findings=work.gate_findings,
            gate_ignored=work.gate_ignored,
            flagged=flagged,
            issue_findings=over_budget,
            since_rejection=changes,
            screenshots=work.screenshots,
            special_files=await agit.off_loop(closure_changes.special_files_in, project),
        ),
    )


def _what_happened(work: IssueWork, flagged: int, over_budget: list[str]) -> list[str]:
    """The harness's lines at the top of the closure: the commits, the test run, the files
    held, the budget, the gates' findings."""
    lines = [
        f"issue #{work.iid} implemented in {len(work.commits)} commit(s)",
        "the harness ran the test suite: " + (work.tests.summary if work.tests else "skipped"),
    ]
    if flagged:
        lines.append(
            f"the outbound review held {flagged} file(s) out of the commits: "
            "approve or exclude each (auto-accept never approves them)"
        )
    lines += [f"over budget: {reason}" for reason in over_budget]
    if work.gate_findings:
        lines.append(
            f"{len(work.gate_findings)} finding(s) about the tree the gates ran on (a gate "
            "changed it, or wrote what they run): a person decides (auto-accept never does)"
        )
    return lines


async def _files_changed(project: Path, span: str) -> list[str]:
    names = await agit.git_bytes(project, "diff", "--name-only", "-z", span)
    return [pathnames.shown(raw) for raw in git.split_nul(names)]


def closure_note(
    run: Run,
    work: IssueWork,
    decision: ClosureDecision,
    approved: list[str],
    excluded: list[str],
) -> str:
    """The note the closed issue gets on the tracker. File names and the test summary are
    the model's doing: quoted, inert on the tracker."""
    chosen = ""
    if approved:
        names = ", ".join(model_words.name(path) for path in approved)
        chosen += f"Flagged files approved by {decision.decided_by}: {names}\n"
    if excluded:
        names = ", ".join(model_words.name(path) for path in excluded)
        chosen += f"Flagged files excluded (never committed): {names}\n"
    tests = model_words.item(work.tests.summary) if work.tests else "skipped"
    commits_text = ", ".join(sha[:12] for sha in work.commits)
    return (
        f"Closed after review by {decision.decided_by}.\nCommits: {commits_text}\nTests: {tests}\n"
        f"Spend: {spend_of(run, work.iid).line()}\n{chosen}\n"
        + model_words.section("Summary", work.done_summary or "")
    )

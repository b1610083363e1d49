"""CODING: one session on the selected issue, then the gates, the commit and the verdict.

Whether an issue is done is decided here: the model's report counts only together
with a commit and a passing test suite run by the harness.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import ValidationError

from agent.core import faultpoints
from agent.core.gates.gates import blocking_failures, failing_checks, fewer_passing, newly_failing
from agent.core.git import agit, commits, unapplied
from agent.core.issue.seat import Seat
from agent.core.run.orchestrator import Run
from agent.core.session import prompts, session_limits
from agent.core.session.tools import Handoff, SessionReports
from agent.core.stages import browser_check, budget, held_files
from agent.core.stages.aside import set_aside
from agent.core.stages.gated import gate_session
from agent.core.stages.selection import check_iteration_budget
from agent.core.trace import trace
from agent.core.words import model_words
from common.errors import GitError
from common.inert_markdown import quoted
from common.schemas.agent_state import AgentState, Phase
from common.schemas.gates import GateRefusal, TestRun
from common.schemas.issue_work import IssueWork
from common.schemas.issues import TrackedIssue
from common.schemas.verdict import SessionVerdict
from common.workspace import git, pathnames

FEEDBACK_OUTPUT_LINES = 15
UNAPPLIED_SHOWN = 160
"""Most characters of git's refusal (its end: git's own words come after the command) in the
line that sets an unapplied verdict aside."""


async def coding_session(run: Run, seat: Seat | None = None) -> None:
    """One session on the seat's issue, then the harness's gates decide what follows.

    The verdict is saved before anything acts on it (the intent); a killed agent finds
    it on resume and applies it instead of running the session again (:func:`_apply`).
    ``seat``: the issue's slot (parallel work); by default the one issue worked alone.
    """
    seat = seat or Seat(run)
    state = run.state
    work = seat.work()
    iid = work.iid
    project = seat.work_tree
    if not seat.in_slot and await agit.current_branch(project) != run.info.feature_branch:
        await agit.git(project, "checkout", run.info.feature_branch)
    if work.verdict is not None:
        run.log(f"resuming: applying the verdict on session {work.verdict.session}")
        await _apply(run, work.verdict, seat)
        return
    limit = run.budgets.sessions_per_issue
    if work.sessions >= limit:
        await set_aside(run, iid, f"issue #{iid} is not done after {limit} session(s)", seat)
        return
    check_iteration_budget(run)
    if await budget.guard(run) == "wrap_up":
        await _wrap_up(run, seat)
        return
    if work.pre_session_dirty is None:
        dirty = await agit.changed_files(project)
        with run.store.editing() as draft:
            seat.work(draft).pre_session_dirty = dirty
            seat.work(draft).pre_session_started_ns = time.time_ns()
    dirty_before = set(seat.work().pre_session_dirty or [])
    issue = await run.tracker.get_issue(iid)
    notes = notes_for_model(issue)
    git_log = await agit.git(project, "log", "--oneline", "-10")
    await browser_check.clear_output(run, project)
    reports, result = await run.session(
        f"coding #{iid} (session {work.sessions + 1})",
        "coding",
        work_tree=project,
        expected_issue=iid,
        iid=iid,
        title=issue.title,
        description=issue.description,
        notes=notes,
        feature_branch=run.info.feature_branch,
        test_command=state.test_command or "(none)",
        git_log=git_log,
        browser=browser_check.prompt_block(run),
        feedback=prompts.feedback_block(work.feedback, work.feedback_source)
        + _kept_out_block(work.kept_out)
        + held_files.session_block(work.held, state.excluded),
    )
    run.sessions_this_run += 1
    faultpoints.reached("coding.session_ended")
    session_number = work.sessions + 1
    screenshots = await browser_check.take_screenshots(run, iid, session_number, project)
    if screenshots or result.browser_calls:
        with run.store.editing() as draft:
            browsed = seat.work(draft)
            browsed.screenshots = [*browsed.screenshots, *screenshots]
            browsed.browser_calls = result.browser_calls or browsed.browser_calls

    # The gates on the tree as the session left it (which they cannot change), then the
    # outbound review of that tree: a flagged file waits for a person.
    gated = await gate_session(run, seat, result.touched, dirty_before)
    files, held, new_files, tests = gated.files, gated.held, gated.new_files, gated.tests
    blocking = blocking_failures(gated.baseline, tests) if tests is not None else []
    checks = failing_checks(state.check_baseline, gated.checks)
    shas = list(work.commits)
    waiting = held_files.merge_held(work.held, files, held)
    changed = bool(files or shas or waiting)
    accepted = reports.done is not None and not blocking and not checks and changed
    commit_message = None
    # Accepted work whose every file is held still gets its (empty) feat commit: the
    # issue's closure needs one, and the approved files follow in a commit of their own.
    if files or (accepted and (not shas or await agit.off_loop(_last_is_wip, project, shas))):
        commit_message = commits.message(
            "feat" if accepted else "wip",
            iid,
            issue.title,
            _commit_body(reports, blocking, tests, list(checks)),
            files,
            commits.tests_line(files, new_files),
            session=session_number,
        )
    handoff = reports.handoff
    max_turns = run.sessions.config.max_turns
    if handoff is None and reports.done is None and result.turns >= max_turns:
        handoff = _turns_handoff(iid, max_turns, files)
        run.log(f"the session used all {max_turns} turns; the harness writes its handoff")
    refused_by = tests if blocking else next(iter(checks.values()), None)
    refusal = None
    if reports.done is not None and refused_by is not None:
        refusal = GateRefusal(
            session=session_number,
            claim=reports.done.summary,
            failing=blocking + [_check_line(name, run) for name in checks],
            test_run=refused_by,
        )
    regression: list[str] = []
    if tests is not None and not run.spec.skip_regression:
        # The issue's own files (every session's), not just this one's: a test the issue
        # wrote in an earlier session and still fails is unfinished work, no regression.
        issue_files = set(files) | new_files | await agit.off_loop(_files_of, project, shas)
        regression = newly_failing(gated.baseline, tests, issue_files)
        regression += fewer_passing(gated.baseline, tests)
    verdict = SessionVerdict(
        session=session_number,
        accepted=accepted,
        files=files,
        held=held,
        kept_out=[item.line() for item in gated.kept_out],
        commit_message=commit_message,
        handoff_json=handoff.model_dump_json() if handoff is not None else None,
        done_summary=reports.done.summary if reports.done is not None else None,
        tests=tests,
        refusal=refusal,
        regression=regression,
        feedback=None
        if accepted
        else _limit_first(result.limit, _refusal_feedback(reports, shas, blocking, tests, checks)),
        tested_tree=gated.tested,
        gate_findings=gated.findings,
        gate_ignored=gated.ignored,
    )
    with run.store.editing() as draft:
        seat.work(draft).verdict = verdict
    faultpoints.reached("coding.tested")
    await _apply(run, verdict, seat)


async def _apply(run: Run, verdict: SessionVerdict, seat: Seat) -> None:
    """Commit (or adopt the commit a killed agent made), note, and move on, as judged.

    A commit carrying this session's ``Harness-Session`` trailer is already the
    verdict's commit: it is adopted, never made twice. Notes are made once by their
    text (both trackers), so repeating this after a kill changes nothing. A commit git
    refuses for good (:func:`agent.core.git.unapplied.lasting`) would fail again at every
    resume: the verdict is set aside instead (:func:`_set_aside_unapplied`); a failure
    for the machine's sake is raised, and the resume tries again.
    """
    iid = seat.work().iid
    project = seat.work_tree
    sha: str | None = None
    if verdict.commit_message is not None:
        since = run.spec.target_branch
        sha = await agit.find_session_commit(project, since, iid, verdict.session)
        if sha is not None:
            run.log(f"adopted {sha[:12]}: this session's commit, made before a restart")
        else:
            try:
                sha = await agit.commit(
                    project,
                    verdict.files,
                    verdict.commit_message,
                    allow_empty=True,
                    tested_tree=verdict.tested_tree,
                )
            except GitError as e:
                if not unapplied.lasting(e):
                    raise
                await _set_aside_unapplied(run, verdict, seat, str(e))
                return
            subject = verdict.commit_message.splitlines()[0]
            run.log(f"committed {sha[:12]}: {subject} ({len(verdict.files)} file(s))")
            trace.commit(sha, verdict.commit_message, len(verdict.files))
        faultpoints.reached("coding.committed")
    else:
        run.log("the session changed no files")
    handoff = _saved_handoff(run, verdict)
    if handoff is not None:
        last = await agit.git(project, "log", "-1", "--format=%H %s")
        await run.tracker.add_note(iid, "handoff", _handoff_note(last, handoff, verdict.files))
        faultpoints.reached("coding.noted")
    if verdict.regression:
        with seat.moving(Phase.REGRESSION_APPROVAL, "regression") as state:
            _record_session(state, verdict, sha, seat).regression = verdict.regression
        return
    if not verdict.accepted:
        feedback = verdict.feedback or "The harness did not accept the issue as done."
        run.log(feedback.splitlines()[0])
        with seat.moving(Phase.CODING, "issue not done yet") as state:
            work = _record_session(state, verdict, sha, seat)
            work.feedback = feedback
            work.feedback_source = "harness"
        return
    with seat.moving(Phase.ISSUE_CLOSURE, f"issue #{iid} passes the gates") as state:
        work = _record_session(state, verdict, sha, seat)
        work.done_summary = verdict.done_summary
        work.feedback = None


async def _set_aside_unapplied(run: Run, verdict: SessionVerdict, seat: Seat, refusal: str) -> None:
    """Set the issue aside for a person, with one line: git refuses the verdict's commit
    for good, so it is never replayed.

    The session's files are committed first under the harness's own message
    (:func:`agent.core.git.unapplied.keep_unapplied`), so the work tree is clean for the next
    issue and the work stays in history; the verdict is spent (the session counted) in the
    same state write that records that commit; :func:`set_aside` then reverts the issue's
    commits and notes why. A kill before that write applies the verdict again, to the same
    end (the commit is found by its trailer); a kill after it leaves the issue with its
    session counted, to be worked again or set aside as usual, never replayed.
    """
    iid = seat.work().iid
    kept = await agit.off_loop(
        unapplied.keep_unapplied,
        seat.work_tree,
        run.spec.target_branch,
        iid,
        verdict.session,
        verdict.files,
        verdict.tested_tree,
    )
    with run.store.editing() as state:
        _record_session(state, verdict, kept, seat)
    where = f"kept in {kept[:12]}" if kept is not None else "left uncommitted in the work tree"
    said = refusal if len(refusal) <= UNAPPLIED_SHOWN else "…" + refusal[-UNAPPLIED_SHOWN:]
    why = (
        f"the harness cannot apply its verdict on session {verdict.session} (git refuses the "
        f"commit: {quoted(said)}); the session's files are {where}"
    )
    await set_aside(run, iid, why, seat)


def _saved_handoff(run: Run, verdict: SessionVerdict) -> Handoff | None:
    """The verdict's handoff, or ``None``: none, or one saved before the handoff's maxima
    that no longer validates (logged in one line; the note is left out, never the run)."""
    if verdict.handoff_json is None:
        return None
    try:
        return Handoff.model_validate_json(verdict.handoff_json)
    except ValidationError as e:
        run.log(
            f"the handoff saved with session {verdict.session} is not noted: "
            f"{e.error_count()} problem(s), first {e.errors()[0]['type']}"
        )
        return None


def notes_for_model(issue: TrackedIssue) -> str:
    """The issue's notes as the coding session reads them, without the decision records:
    those are for people, and carry reasons the model is promised never to read (a
    merge_conflict or regression reason); what a session must know of a decision
    reaches it as the harness's feedback."""
    shown = [f"[{n.kind}] {n.body}" for n in issue.notes if n.kind != "decision"]
    return "\n\n".join(shown) or "(none)"


def _record_session(
    state: AgentState, verdict: SessionVerdict, sha: str | None, seat: Seat
) -> IssueWork:
    """Record an applied verdict in ``state`` (its issue's sessions, commits, gate
    results and files kept out or held); the verdict is spent. Returns the issue's work.

    A slot's test run is its own worktree's: it is not the run's latest (the project's
    work tree's), which the gates reuse while that tree is unchanged."""
    work = seat.work(state)
    work.sessions = verdict.session
    if sha is not None:
        work.commits = [*work.commits, sha]
        if not seat.in_slot:  # a slot's commits join the feature branch when it merges
            state.harness_commits = [*state.harness_commits, sha]
    if verdict.refusal is not None:
        refusal = verdict.refusal.model_copy(update={"commit_sha": sha})
        work.gate_refusals = [*work.gate_refusals, refusal]
    work.kept_out = list(dict.fromkeys([*work.kept_out, *verdict.kept_out]))
    work.gate_findings = list(dict.fromkeys([*work.gate_findings, *verdict.gate_findings]))
    work.gate_ignored = list(dict.fromkeys([*work.gate_ignored, *verdict.gate_ignored]))
    work.tested_tree = verdict.tested_tree or work.tested_tree
    work.held = held_files.merge_held(work.held, verdict.files, verdict.held)
    work.tests = verdict.tests
    if not seat.in_slot:
        state.last_test_run = verdict.tests
    work.pre_session_dirty = None
    work.verdict = None
    return work


def _files_of(project: Path, shas: list[str]) -> set[str]:
    """Every file the issue's commits changed."""
    if not shas:
        return set()
    span = git.git_bytes(project, "diff", "--name-only", "-z", f"{shas[0]}~1", shas[-1])
    return {pathnames.key(raw) for raw in git.split_nul(span)}


def _last_is_wip(project: Path, shas: list[str]) -> bool:
    """Whether the issue's latest commit is a ``wip`` one (accepted work then gets a
    ``feat`` commit of its own, even when the accepting session changed nothing)."""
    if not shas:
        return False
    return git.git(project, "log", "-1", "--format=%s", shas[-1]).startswith("wip(")


def _commit_body(
    reports: SessionReports, blocking: list[str], tests: TestRun | None, checks: list[str]
) -> str:
    """The commit's body: the model's summary only when the harness accepted the work."""
    if reports.done is None:
        return "Work in progress: the session did not report the issue done; see the handoff note."
    if checks and not blocking:
        return (
            "Work in progress: the session reported the issue done, but the harness's quality "
            f"checks refused it (failing: {', '.join(checks)})."
        )
    if not blocking:
        return reports.done.summary
    summary = tests.summary if tests is not None else "failed"
    return (
        f"Work in progress: the session reported the issue done, but the harness's test gate "
        f"refused it ({summary}; failing: {', '.join(blocking)})."
    )


def _refusal_feedback(
    reports: SessionReports,
    shas: list[str],
    blocking: list[str],
    tests: TestRun | None,
    checks: dict[str, TestRun],
) -> str:
    """Why the harness did not accept the issue, for the log and the next session."""
    problems = []
    if reports.done is None:
        problems.append("the session did not report the issue done")
    if not shas:
        problems.append("no change was made for the issue")
    if blocking and tests is not None:
        problems.append(f"`{tests.command}` fails: {', '.join(blocking)}")
    for name, check in checks.items():
        problems.append(f"the {name} check `{check.command}` fails (it passed before the issue)")
    text = "The harness did not accept the issue as done: " + "; ".join(problems) + "."
    if reports.done is not None and (blocking or checks):
        text += f"\nThe previous session claimed: {reports.done.summary}"
    if blocking and tests is not None and tests.output_tail:
        tail = tests.output_tail.splitlines()[-FEEDBACK_OUTPUT_LINES:]
        text += "\nThe end of the test output:\n" + "\n".join(tail)
    for name, check in checks.items():
        tail = check.output_tail.splitlines()[-FEEDBACK_OUTPUT_LINES:]
        text += f"\nThe end of the {name} output:\n" + "\n".join(tail)
    return text


def _limit_first(limit: str | None, feedback: str) -> str:
    """The refusal, after the limit the harness ended the session at (if it did)."""
    return feedback if limit is None else f"{session_limits.feedback(limit)}\n{feedback}"


def _kept_out_block(kept_out: list[str]) -> str:
    """What the harness kept out of the issue's commits, told to the next session as
    the harness's words (the names in it are the model's: escaped, and quoted as data)."""
    if not kept_out:
        return ""
    line = (
        f"The harness kept {len(kept_out)} path(s) out of every commit of this issue: it "
        "never commits a nested git repository, a file name with control, bidi or "
        "invisible characters, or a file git ignores. Remove or rename them (or stop "
        "ignoring them) if they belong to the issue."
    )
    names = prompts.untrusted("kept-out-paths", "\n".join(f"- {item}" for item in kept_out))
    return f"\n---- FROM THE HARNESS (its commit check, not a person) ----\n{line}\n{names}\n"


def _check_line(name: str, run: Run) -> str:
    return f"(check {name}: `{run.state.quality_checks.get(name, '?')}` fails)"


def _turns_handoff(iid: int, turns: int, files: list[str]) -> Handoff:
    """The handoff the harness writes for a session that ran out of turns without one."""
    return Handoff(
        issue_iid=iid,
        completed=[f"the session changed {len(files)} file(s), committed as wip"],
        in_progress=[f"the session ran out of turns ({turns}) before it reported the issue done"],
        not_started=[],
        next_steps=[
            "read the wip commit and the files changed, finish the issue, run the tests, "
            "and report it done"
        ],
        gotchas=[f"a session has at most {turns} turns: work in small steps"],
    )


async def _wrap_up(run: Run, seat: Seat) -> None:
    """A budget's "go to the MR": set the started issue aside, leave an untouched one open."""
    work = seat.work()
    iid = work.iid
    if work.sessions or work.commits:
        await set_aside(run, iid, "a budget was reached before the issue was done", seat)
        return
    await run.tracker.update_issue(iid, remove_labels=("in-progress",))
    seat.leave("a budget was reached")


def _handoff_note(last: str, handoff: Handoff, files: list[str]) -> str:
    """The handoff note; ``last`` is the branch's last commit (``%H %s``)."""

    def bullets(items: list[str]) -> str:
        return "\n".join(f"- {model_words.item(item)}" for item in items) or "- (none)"

    names = "\n".join(f"- {model_words.name(path)}" for path in files) or "- (none)"

    # The sections' items are the model's (one line each, so none opens a section of its
    # own); the commit and the files are the harness's.
    return (
        f"## Session handoff\nLast commit: {model_words.item(last)}\n"
        "Completed, in progress, not started, next steps and gotchas are the agent's model's "
        "words; the harness has not verified them.\n\n"
        f"### Completed\n{bullets(handoff.completed)}\n\n"
        f"### In progress\n{bullets(handoff.in_progress)}\n\n"
        f"### Not started\n{bullets(handoff.not_started)}\n\n"
        f"### Files changed\n{names}\n\n"
        f"### Next steps\n{bullets(handoff.next_steps)}\n\n"
        f"### Gotchas\n{bullets(handoff.gotchas)}\n"
    )

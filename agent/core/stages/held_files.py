"""The outbound review in the workflow: hold flagged files, apply a person's choices,
rescan the branch before the push, and name every approval in the merge request.

The review of a session's files runs after its gates, on the tree they ran on, which is
what the commit holds (:mod:`agent.core.stages.gated`): judged before the gates, a plain
file a gate then swapped for a link reached the commit unseen (issue 26).

Why: the commit, the push and the merge request are the only way out of the sandbox.
A flagged file (:mod:`agent.core.outbound`) is held out of the session's commit and
shown at issue_closure; auto-accept never answers for it
(:func:`common.workspace.decisions.waits_for_person`). A person approves it (the
harness commits it with an ``Approved-by`` trailer), excludes it (never committed; every
later session is told) or sends the issue back.
"""

from __future__ import annotations

from pathlib import Path

from agent.core.git import agit, commits
from agent.core.issue.seat import Seat
from agent.core.outbound import bulk, facts, review
from agent.core.run.orchestrator import Run
from agent.core.session import prompts
from common.inert_markdown import quoted
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import ClosureDecision, IssueClosureCheckpoint
from common.schemas.outbound import (
    ApprovedChange,
    FileChoice,
    Finding,
    FlaggedFile,
    OutboundSettings,
)
from common.untrusted_text import printable_line, printable_name
from common.workspace import git, pathnames

APPROVAL_TRAILER = "Harness-Approval"
"""Names the checkpoint whose approvals a commit holds: a resumed agent adopts it."""
APPROVER_TRAILER = "Approved-by"
APPROVED_HEADING = "## Flagged changes a person approved"


def settings_of(run: Run) -> OutboundSettings:
    """The settings recorded at project_verification (the defaults for an older state)."""
    return run.state.outbound or OutboundSettings()


def secrets_of(run: Run) -> list[str]:
    """The exact secrets the agent was given (tokens, keys): never to leave in a file."""
    return list(run.secrecy.secrets) if run.secrecy is not None else []


async def hold(
    run: Run, files: list[str], work_tree: Path | None = None
) -> tuple[list[str], list[FlaggedFile]]:
    """The session's files (in ``work_tree``, default the project's) to commit, and the
    ones held for a person (logged). More files than ``limits.changed_files``: all held,
    by folder, unread (:mod:`agent.core.outbound.bulk`)."""
    where = work_tree or run.spec.project_dir
    limit = run.spec.limits.changed_files
    found = await agit.off_loop(
        review.review_session,
        where,
        files,
        settings_of(run),
        secrets_of(run),
        max_files=limit,
    )
    if len(files) > limit:
        run.log(
            f"the session changed {len(files):,} files, more than the {limit:,} a session "
            f"may (limits.changed_files): all held for a person, in {len(found.flagged)} "
            "folder(s), none committed"
        )
    for item in found.flagged:
        reasons = "; ".join(finding.reason for finding in item.findings)
        run.log(f"held for a person (outbound review): {printable_name(item.path)}: {reasons}")
    return found.clean, found.flagged


def merge_held(
    before: list[FlaggedFile], committed: list[str], now: list[FlaggedFile]
) -> list[FlaggedFile]:
    """The issue's held files after a session: a file it committed (clean now) is no
    longer held, a file it flagged again replaces the older finding (a folder entry that
    holds it too); a folder held whole again stands for the files of both, less those
    held or committed on their own."""
    gone = set(committed) | {item.path for item in now if not bulk.is_folder_entry(item)}
    grouped = {path for item in now if bulk.is_folder_entry(item) for path in item.files}
    by_path: dict[str, FlaggedFile] = {}
    for item in [*before, *now]:
        if not bulk.is_folder_entry(item):
            if item.path not in committed and (item in now or item.path not in grouped):
                by_path[item.path] = item
            continue
        earlier = by_path.get(item.path)
        members = [*(earlier.files if earlier is not None else []), *item.files]
        kept = [path for path in dict.fromkeys(members) if path not in gone]
        if kept:
            by_path[item.path] = bulk.recounted(item, kept)
        else:
            by_path.pop(item.path, None)
    return [by_path[path] for path in sorted(by_path)]


def still_changed(project: Path, held: list[FlaggedFile]) -> list[FlaggedFile]:
    """The held files that still differ from ``HEAD`` (one the model removed again is
    no longer anyone's question; a folder entry keeps the files that still differ)."""
    changed = {pathnames.key(raw) for raw in git.changed_paths(project)}
    kept: list[FlaggedFile] = []
    for item in held:
        if not bulk.is_folder_entry(item):
            if item.path in changed:
                kept.append(item)
            continue
        members = [path for path in item.files if path in changed]
        if members:
            kept.append(item if members == item.files else bulk.recounted(item, members))
    return kept


def session_block(held: list[FlaggedFile], excluded: list[str]) -> str:
    """What the next session is told about held and excluded files (the harness's words;
    the names and findings are data)."""
    if not held and not excluded:
        return ""
    lines = [
        "\n---- FROM THE HARNESS (its outbound review, not a person) ----",
        "The harness never commits these files without a person's approval: CI "
        "configuration, agent and editor settings, package-manager configuration, git "
        "metadata, credentials, links out of the project, large, binary or newly "
        "executable files. Held files wait for a person at issue_closure; excluded files "
        "stay out of the branch: do not rely on them.",
    ]
    listing = [f"- held: {item.path} ({_reasons(item)})" for item in held]
    listing += [f"- excluded: {line}" for line in excluded]
    lines.append(prompts.untrusted("outbound-review", "\n".join(listing)))
    return "\n".join(lines) + "\n"


async def apply_choices(
    run: Run, checkpoint: IssueClosureCheckpoint, seat: Seat | None = None
) -> tuple[list[str], list[str]]:
    """Commit the files a person approved (once: adopted by its trailer after a restart),
    record who approved what and what was excluded. Returns (approved, excluded) paths.

    ``seat``: where the issue is worked (default: alone, in the project)."""
    decision = checkpoint.decision
    assert isinstance(decision, ClosureDecision) and decision.approved
    seat = seat or Seat(run)
    project = seat.work_tree
    iid = checkpoint.context.issue_iid
    flagged = {item.path: item for item in checkpoint.context.flagged}
    approved = [p for p, choice in decision.files.items() if choice is FileChoice.APPROVE]
    excluded = [p for p, choice in decision.files.items() if choice is FileChoice.EXCLUDE]
    approved = sorted(p for p in approved if p in flagged)
    excluded = sorted(p for p in excluded if p in flagged)
    who = printable_line(decision.decided_by)
    records: list[ApprovedChange] = []
    sha: str | None = None
    if approved:
        sha = await agit.off_loop(_approval_commit, project, run.spec.target_branch, checkpoint.id)
        if sha is None:
            text = _approval_message(iid, checkpoint.id, who, [flagged[p] for p in approved])
            # As the latest session's gates ran them (nothing runs between those gates and
            # this closure; a file changed since is refused, never committed untested).
            tested = seat.work().tested_tree
            files = _files_of([flagged[path] for path in approved])
            sha = await agit.commit(project, files, text, allow_empty=True, tested_tree=tested)
            run.log(f"committed {sha[:12]}: {len(files)} flagged file(s) {who} approved")
        else:
            run.log(f"adopted {sha[:12]}: the approved flagged files, committed before a restart")
        single = [path for path in approved if not bulk.is_folder_entry(flagged[path])]
        blobs = await agit.off_loop(_blobs_of, project, sha, single)
        records = [
            ApprovedChange(
                path=path,
                reasons=[finding.reason for finding in flagged[path].findings],
                approved_by=decision.decided_by,
                where=checkpoint.id,
                # A folder's files are approved unread: none is passed by its object, so
                # the branch's review before the push reads each of them.
                blob=blobs.get(path),
            )
            for path in approved
        ]
    excluded_lines = [f"{path} ({_reasons(flagged[path])}; excluded by {who})" for path in excluded]
    for line in excluded_lines:
        run.log(f"excluded by a person, never committed: {printable_name(line)}")
    with run.store.editing() as state:
        _add_approved(state, records)
        state.excluded = list(dict.fromkeys([*state.excluded, *excluded_lines]))
        work = seat.work(state)
        work.held = []
        if sha is not None and sha not in work.commits:
            work.commits = [*work.commits, sha]
            if not seat.in_slot:  # a slot's commits join the feature branch when it merges
                state.harness_commits = [*state.harness_commits, sha]
    return approved, excluded


def _add_approved(state: AgentState, records: list[ApprovedChange]) -> None:
    """Record approvals in ``state`` once each (a repeat after a restart adds nothing)."""
    known = {(item.path, item.where) for item in state.approved_changes}
    state.approved_changes = [
        *state.approved_changes,
        *(item for item in records if (item.path, item.where) not in known),
    ]


def _approval_commit(project: Path, target_branch: str, checkpoint_id: str) -> str | None:
    """The commit of this checkpoint's approvals, if the harness made it already."""
    return commits.commit_with_trailer(project, target_branch, APPROVAL_TRAILER, checkpoint_id)


def _files_of(items: list[FlaggedFile]) -> list[str]:
    """The files ``items`` stand for: a file itself, a folder entry its files."""
    found: list[str] = []
    for item in items:
        found += item.files if bulk.is_folder_entry(item) else [item.path]
    return list(dict.fromkeys(found))


def _blobs_of(project: Path, commit: str, paths: list[str]) -> dict[str, str | None]:
    """Each path's blob in ``commit`` (git only: it runs off the event loop)."""
    return {path: facts.blob_of(project, commit, path) for path in paths}


def _approval_message(iid: int, checkpoint_id: str, who: str, items: list[FlaggedFile]) -> str:
    listing = "\n".join(f"- {item.path}: {_reasons(item)}" for item in items)
    return (
        f"chore(#{iid}): flagged change(s) a person approved\n\n"
        f"The harness's outbound review held these files out of the issue's commits; "
        f"{who} approved them at {checkpoint_id}:\n{listing}\n\n"
        f"{APPROVAL_TRAILER}: {checkpoint_id}\n{APPROVER_TRAILER}: {who}\n"
    )


def _reasons(item: FlaggedFile) -> str:
    return "; ".join(printable_line(finding.reason) for finding in item.findings)


async def branch_flagged(run: Run) -> list[FlaggedFile]:
    """Every flagged change on the branch (target...HEAD) that no person approved."""
    return await agit.off_loop(
        review.review_branch,
        run.spec.project_dir,
        run.spec.target_branch,
        "HEAD",
        settings_of(run),
        secrets_of(run),
        run.state.approved_changes,
    )


async def approve_on_branch(run: Run, items: list[FlaggedFile], who: str, where: str) -> None:
    """Record the flagged changes a person approved with the merge request."""
    blobs = await agit.off_loop(
        _blobs_of, run.spec.project_dir, "HEAD", [item.path for item in items]
    )
    records = [
        ApprovedChange(
            path=item.path,
            reasons=[finding.reason for finding in item.findings],
            approved_by=who,
            where=where,
            blob=blobs[item.path],
        )
        for item in items
    ]
    with run.store.editing() as state:
        _add_approved(state, records)


def approved_section(approved: list[ApprovedChange]) -> str:
    """The merge request's list of flagged changes a person approved, and who (the
    harness's own section: the model's summary is quoted above it)."""
    if not approved:
        return (
            f"{APPROVED_HEADING}\nNone: the harness's outbound review flagged no change "
            "that reached this branch.\n"
        )
    lines = [
        f"{APPROVED_HEADING}",
        "The harness's outbound review flagged these changes; each reached the branch only "
        "after a person approved it:",
    ]
    for item in approved:
        reasons = "; ".join(printable_line(reason) for reason in item.reasons)
        lines.append(
            f"- {quoted(item.path, name=True)}: {reasons} — approved by "
            f"{printable_line(item.approved_by)} at {item.where}"
        )
    return "\n".join(lines) + "\n"


def with_approved_section(description: str, before: str, after: str) -> str:
    """``description`` with its approved-changes section ``before`` replaced by ``after``
    (the last one: the model's words above it are quoted and cannot hold it)."""
    head, found, tail = description.rpartition(before)
    return head + after + tail if found else description + "\n" + after


async def over_budget(run: Run, span: str, work_tree: Path | None = None) -> list[Finding]:
    """The issue's diff (``span``, in ``work_tree``, default the project's) over its
    budget of lines or files: a person decides."""
    where = work_tree or run.spec.project_dir
    return await agit.off_loop(review.diff_budget, where, span, settings_of(run))

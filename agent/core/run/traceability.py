"""The merge request's traceability: spec section → issue → commits → tests → gates → cost.

Why: a reviewer should see which part of the spec each change implements without
taking the model's word for any of it. Every cell here is a harness fact: the sections
are the spec's own headings, the issue of each section is the map a person approved at
spec_to_issues (``AgentState.spec_drafts``), the commits are the ones the harness
recorded making (``AgentState.harness_commits``) that are on the branch, each tied to
its issue by the ``kind(#N):`` prefix the harness wrote in its subject, the tests are
what git says those commits changed, the gate results are those of the issue_closure
checkpoint a person (or a rule) approved, from the signed checkpoint log, and the cost
is the harness's meter (``issue_spend``). Then the issues set aside and the decisions
of the run (the checkpoint log). The flagged changes a person approved are not repeated
here: the description's own section just above lists each with who approved it
(:func:`agent.core.stages.held_files.approved_section`).

Titles, section names, file names and the test summaries are the model's or the spec's
(or printed by the model's code): each is an inert code span, quoted (:func:`common.
inert_markdown.quoted`), so no mention, link, image, reference or HTML in it acts and no
``|`` or newline breaks the table; the harness's own words around them are escaped cells
(:func:`agent.tracker.decision_text.inline`). :func:`commit_facts` reads git;
:func:`section` is pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from agent.core.run.decision_record import choice_words
from agent.tracker.decision_text import inline
from common.inert_markdown import quoted
from common.schemas.agent_state import AgentState
from common.schemas.checkpoint import Checkpoint, IssueClosureCheckpoint
from common.schemas.issues import TrackedIssue
from common.workspace import git
from common.workspace.checkpoint_issue import issue_of

HEADING = "## Traceability (from the harness's records)"
LEGEND = (
    "Text in code is quoted as the spec, the model or its tests wrote it (titles, section "
    "and file names, test summaries); everything else is the harness's."
)
NONE = "—"
#: The issue a harness commit belongs to: ``feat(#3): …``, ``chore(#3): …`` (the harness's prefix).
_SUBJECT_ISSUE = re.compile(r"\A[a-z]+\(#(?P<iid>[0-9]{1,9})\): ")
_SEPARATOR = "\x01"


@dataclass(frozen=True)
class CommitFact:
    """One harness commit on the branch: its short SHA, its issue, the test files it changed."""

    short: str
    issue: int | None
    tests: list[str] = field(default_factory=list)


def is_test_file(path: str) -> bool:
    """A file under a ``tests``/``test`` folder, or named ``test_*`` or ``*_test.py``."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else ""
    return (
        any(part in ("tests", "test") for part in parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
    )


def commit_facts(project: Path, target_branch: str, recorded: Sequence[str]) -> list[CommitFact]:
    """The harness's recorded commits on ``HEAD`` since ``target_branch``, oldest first
    (merge commits left out: they implement nothing of their own)."""
    made = set(recorded)
    if not made:
        return []
    out = git.git(
        project,
        "log",
        "--reverse",
        "--no-merges",
        "--name-only",
        f"--format={_SEPARATOR}%H %h %s",
        f"{target_branch}..HEAD",
    )
    facts: list[CommitFact] = []
    for block in out.split(_SEPARATOR)[1:]:
        head, *paths = block.splitlines()
        sha, short, subject = [*head.split(" ", 2), "", ""][:3]
        if sha not in made:
            continue
        found = _SUBJECT_ISSUE.match(subject)
        tests = [path for path in paths if path.strip() and is_test_file(path)]
        facts.append(CommitFact(short, int(found["iid"]) if found else None, tests))
    return facts


def section(
    state: AgentState,
    issues: list[TrackedIssue],
    log: list[Checkpoint],
    commits: list[CommitFact],
    sections: list[str],
) -> str:
    """The Markdown section: the table, then the issues set aside and the decisions.

    Args:
        state: the agent's state (drafts, spend, set aside, approved changes).
        issues: the milestone's issues as the tracker holds them (for titles and states).
        log: the checkpoint log, oldest first.
        commits: :func:`commit_facts`.
        sections: the spec's section ids, in order.
    """
    by_issue: dict[int, list[CommitFact]] = {}
    for fact in commits:
        if fact.issue is not None:
            by_issue.setdefault(fact.issue, []).append(fact)
    gates = _closure_gates(log)
    rows: list[str] = []
    placed: set[int] = set()
    for name in sections:
        covering = [
            issue
            for issue in issues
            if issue.iid in state.spec_drafts and name in state.spec_drafts[issue.iid].spec_sections
        ]
        if not covering:
            rows.append(f"| {_cell(name)} | {NONE} | {NONE} | {NONE} | {NONE} | {NONE} |")
        for issue in covering:
            placed.add(issue.iid)
            rows.append(_row(_cell(name), issue, by_issue, gates, state))
    for issue in issues:
        if issue.iid not in placed:
            rows.append(_row(NONE, issue, by_issue, gates, state))
    table = (
        "| spec section | issue | commits | tests added or changed | gates | cost |\n"
        "|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )
    return f"{HEADING}\n{LEGEND}\n\n{table}\n" + _set_aside(state, issues) + _decisions(log)


def _cell(text: str, *, name: bool = False) -> str:
    """Words of the spec's, the model's or its tests' in a table cell: quoted, inert (a
    file ``name`` with its look-alike blanks escaped too)."""
    return quoted(text, cell=True, name=name)


def _row(
    shown_section: str,
    issue: TrackedIssue,
    by_issue: dict[int, list[CommitFact]],
    gates: dict[int, str],
    state: AgentState,
) -> str:
    facts = by_issue.get(issue.iid, [])
    shas = ", ".join(f"`{fact.short}`" for fact in facts) or NONE
    tests = ", ".join(dict.fromkeys(_cell(t, name=True) for fact in facts for t in fact.tests))
    tests = tests or NONE
    spend = state.issue_spend.get(issue.iid)
    cost = f"${spend.cost_usd:.4f} ({spend.sessions} session(s))" if spend else NONE
    status = "set aside" if issue.iid in state.set_aside else issue.state
    shown_issue = f"#{issue.iid} {_cell(issue.title)} ({status})"
    gate = gates.get(issue.iid, NONE)
    return f"| {shown_section} | {shown_issue} | {shas} | {tests} | {gate} | {cost} |"


def _closure_gates(log: list[Checkpoint]) -> dict[int, str]:
    """Each issue's gate results as its last approved issue_closure showed them."""
    found: dict[int, str] = {}
    for checkpoint in log:
        if not isinstance(checkpoint, IssueClosureCheckpoint):
            continue
        if checkpoint.decision is None or not checkpoint.decision.approved:
            continue
        context = checkpoint.context
        parts = [f"tests: {_cell(context.test_run.summary)}"] if context.test_run else []
        parts += [
            f"{_cell(name)}: {'passes' if run.passed else 'fails'}"
            for name, run in context.checks.items()
        ]
        found[context.issue_iid] = "; ".join(parts) or "no gate ran"
    return found


def _set_aside(state: AgentState, issues: list[TrackedIssue]) -> str:
    titles = {issue.iid: issue.title for issue in issues}
    if not state.set_aside:
        return "Issues set aside: none\n\n"
    listed = ", ".join(
        f"#{iid} {quoted(titles[iid])}" if iid in titles else f"#{iid}" for iid in state.set_aside
    )
    return f"Issues set aside for a person: {listed}\n\n"


def _decisions(log: list[Checkpoint]) -> str:
    decided = [checkpoint for checkpoint in log if checkpoint.decision is not None]
    if not decided:
        return "Decisions that shaped the run: none\n"
    rows = []
    for checkpoint in decided:
        decision = checkpoint.decision
        assert decision is not None
        issue = issue_of(checkpoint)
        rows.append(
            f"| {checkpoint.type.value} | {f'#{issue}' if issue is not None else NONE} | "
            f"{inline(choice_words(decision), cell=True)} | "
            f"{inline(decision.decided_by, cell=True)} | "
            f"{inline(decision.rule, cell=True) if decision.rule else NONE} |"
        )
    return (
        "### Decisions that shaped the run\n"
        "| checkpoint | issue | decision | by | rule |\n|---|---|---|---|---|\n"
        + "\n".join(rows)
        + "\n"
    )

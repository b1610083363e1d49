"""Dependencies between issues: the graph's checks and which issues may start now.

Pure functions, shared by the session's report (a proposal's positions), a person's
``--choice`` edit (the same positions), and issue selection (the tracker's iids).
The model proposes dependencies; whether one is valid and whether an issue may start
is decided here, by the harness, never by the model's word.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from common.schemas.issues import SET_ASIDE_LABEL, TrackedIssue

Graph = Mapping[int, Sequence[int]]
"""An issue (position or iid) → the issues it depends on."""


def find_cycle(graph: Graph) -> list[int] | None:
    """A cycle of ``graph`` as the path that closes it (``[2, 3, 2]``), or ``None``.

    Iterative depth-first search (a long chain cannot exhaust Python's stack); issues
    are visited in ascending order, so the cycle reported is the same on every call.
    """
    done: set[int] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[int] = [start]
        on_path = {start}
        stack = [iter(sorted(set(graph.get(start, ()))))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if step in on_path:
                return [*path[path.index(step) :], step]
            if step in done:
                continue
            path.append(step)
            on_path.add(step)
            stack.append(iter(sorted(set(graph.get(step, ())))))
    return None


def cycle_line(cycle: Sequence[int]) -> str:
    """The one line that refuses a cycle: ``dependency cycle: #2 → #3 → #2``."""
    return "dependency cycle: " + " → ".join(f"#{n}" for n in cycle)


def graph_problem(graph: Graph, known: Iterable[int]) -> str | None:
    """What is wrong with ``graph`` over the issues ``known``, in one line, or ``None``.

    Unknown issues and self-dependencies are named first (all of them); then a cycle.
    """
    numbers = set(known)
    problems: list[str] = []
    for issue in sorted(graph):
        needs = graph[issue]
        if issue not in numbers:
            problems.append(f"#{issue} is no issue of the proposal")
        unknown = sorted({n for n in needs if n not in numbers})
        if unknown:
            listed = ", ".join(f"#{n}" for n in unknown)
            problems.append(f"#{issue} depends on {listed}, which the proposal does not have")
        if issue in needs:
            problems.append(f"#{issue} depends on itself")
    if problems:
        return "; ".join(problems)
    cycle = find_cycle(graph)
    return cycle_line(cycle) if cycle is not None else None


def positions(depends_on: Sequence[Sequence[int]]) -> dict[int, list[int]]:
    """Each proposed issue's 1-based position → the positions it depends on."""
    return {index: sorted(set(needs)) for index, needs in enumerate(depends_on, start=1)}


def edited(current: Graph, edits: Mapping[int, Sequence[int]]) -> dict[int, list[int]]:
    """``current`` with each issue named in ``edits`` depending on exactly what it names."""
    graph = {issue: sorted(set(needs)) for issue, needs in current.items()}
    graph.update({issue: sorted(set(needs)) for issue, needs in edits.items()})
    return graph


def parse_edits(text: str) -> dict[int, list[int]]:
    """``3:1,2;4:`` → ``{3: [1, 2], 4: []}``: what each named issue depends on.

    Items are separated by ``;`` or new lines; an empty list clears an issue's
    dependencies; ``#`` before a number is allowed.

    Raises:
        ValueError: one line saying what is wrong.
    """
    edits: dict[int, list[int]] = {}
    for item in filter(None, (part.strip() for part in text.replace("\n", ";").split(";"))):
        issue, sep, needs = item.partition(":")
        if not sep:
            raise ValueError(f"expected ISSUE:DEPENDENCIES like 3:1,2 — got {item!r}")
        try:
            number = int(issue.strip().lstrip("#"))
            listed = [int(n.strip().lstrip("#")) for n in needs.split(",") if n.strip()]
        except ValueError as e:
            raise ValueError(f"expected issue numbers like 3:1,2 — got {item!r}") from e
        if number in edits:
            raise ValueError(f"#{number} is named twice")
        edits[number] = sorted(set(listed))
    return edits


def depends_text(needs: Sequence[int]) -> str:
    """``depends on #1, #3``, or empty for none."""
    return "depends on " + ", ".join(f"#{n}" for n in needs) if needs else ""


@dataclass(frozen=True)
class Readiness:
    """Which open issues may start now, and why each other one may not."""

    ready: list[int]
    """Open, not set aside, every dependency closed: in iid order."""
    waiting: dict[int, list[int]]
    """Open issues whose dependencies are not all closed yet, each with the open ones;
    they start once those are closed."""
    stuck: dict[int, list[int]]
    """Open issues that can never start unless a person steps in: a dependency (or one
    of its own, transitively) is set aside, or is no issue of the milestone."""


def readiness(issues: Sequence[TrackedIssue]) -> Readiness:
    """Sort the open issues that are not set aside into ready, waiting and stuck.

    A stuck issue is set aside by issue selection (with the reason), so a run never
    waits for an issue nobody will work on; a dependency cycle among stored issues
    (a hand-edited milestone file) makes its members stuck too, never a deadlock.
    """
    by_iid = {issue.iid: issue for issue in issues}

    def aside(issue: TrackedIssue) -> bool:
        return issue.state == "opened" and SET_ASIDE_LABEL in issue.labels

    candidates = sorted(
        (i for i in issues if i.state == "opened" and not aside(i)), key=lambda i: i.iid
    )
    blocked_for_good: dict[int, bool] = {}

    def hopeless(iid: int, seen: frozenset[int]) -> bool:
        """Whether issue ``iid`` can never be closed by the run (memoised)."""
        if iid in blocked_for_good:
            return blocked_for_good[iid]
        issue = by_iid.get(iid)
        if issue is None or aside(issue) or iid in seen:
            result = True
        elif issue.state == "closed":
            result = False
        else:
            result = any(hopeless(n, seen | {iid}) for n in issue.depends_on)
        blocked_for_good[iid] = result
        return result

    ready: list[int] = []
    waiting: dict[int, list[int]] = {}
    stuck: dict[int, list[int]] = {}
    for issue in candidates:
        not_closed = [n for n in issue.depends_on if n not in by_iid or by_iid[n].state != "closed"]
        if not not_closed:
            ready.append(issue.iid)
        elif any(hopeless(n, frozenset({issue.iid})) for n in not_closed):
            stuck[issue.iid] = [n for n in not_closed if hopeless(n, frozenset({issue.iid}))]
        else:
            waiting[issue.iid] = not_closed
    return Readiness(ready, waiting, stuck)


def ready_issues(issues: Sequence[TrackedIssue]) -> list[int]:
    """The open issues that may start now: not set aside, every dependency closed.

    The one place this is decided (issue selection asks it; parallel slots will too).
    """
    return readiness(issues).ready


def stuck_reason(issue: int, on: Sequence[int], issues: Sequence[TrackedIssue]) -> str:
    """Why ``issue`` is set aside because of ``on``: one line naming each."""
    by_iid = {i.iid: i for i in issues}
    parts = []
    for iid in on:
        found = by_iid.get(iid)
        if found is None:
            parts.append(f"#{iid}, which is no issue of the milestone")
        elif SET_ASIDE_LABEL in found.labels:
            parts.append(f"#{iid}, which is set aside")
        else:
            parts.append(f"#{iid}, which cannot start (its own dependencies are stuck)")
    return f"issue #{issue} depends on " + "; ".join(parts)

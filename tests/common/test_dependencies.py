"""Dependencies between issues: the graph's checks and which issues may start now."""

from __future__ import annotations

import pytest

from common.dependencies import (
    cycle_line,
    edited,
    find_cycle,
    graph_problem,
    parse_edits,
    positions,
    readiness,
    ready_issues,
    stuck_reason,
)
from common.schemas.issues import SET_ASIDE_LABEL, TrackedIssue


def issue(
    iid: int, *needs: int, closed: bool = False, labels: tuple[str, ...] = ()
) -> TrackedIssue:
    return TrackedIssue(
        iid=iid,
        title=f"Issue {iid}",
        description="d",
        state="closed" if closed else "opened",
        labels=list(labels),
        depends_on=list(needs),
    )


# --- the graph --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("graph", "cycle"),
    [
        ({1: [], 2: [1], 3: [1, 2]}, None),
        ({1: [2], 2: [3], 3: [2]}, [2, 3, 2]),
        ({1: [1]}, [1, 1]),
        ({1: [3], 2: [1], 3: [2]}, [1, 3, 2, 1]),
        ({4: [5], 5: [], 1: [4]}, None),
        ({}, None),
    ],
)
def test_find_cycle_names_the_path_that_closes_it(
    graph: dict[int, list[int]], cycle: list[int] | None
) -> None:
    assert find_cycle(graph) == cycle


def test_a_long_chain_is_no_cycle_and_does_not_exhaust_the_stack() -> None:
    chain = {n: [n - 1] for n in range(2, 5000)} | {1: []}
    assert find_cycle(chain) is None
    assert find_cycle(chain | {1: [4999]}) == [1, 4999, *range(4998, 0, -1)]


def test_the_cycle_line_is_one_line() -> None:
    assert cycle_line([2, 3, 2]) == "dependency cycle: #2 → #3 → #2"


@pytest.mark.parametrize(
    ("graph", "problem"),
    [
        ({1: [], 2: [1]}, None),
        ({1: [], 2: [7, 9]}, "#2 depends on #7, #9, which the proposal does not have"),
        ({1: [1], 2: []}, "#1 depends on itself"),
        ({1: [2], 2: [1]}, "dependency cycle: #1 → #2 → #1"),
        (
            {1: [0], 2: [2]},
            "#1 depends on #0, which the proposal does not have; #2 depends on itself",
        ),
        ({1: [], 2: [], 5: [1]}, "#5 is no issue of the proposal"),
    ],
)
def test_graph_problem(graph: dict[int, list[int]], problem: str | None) -> None:
    assert graph_problem(graph, range(1, 3)) == problem


def test_positions_and_edits() -> None:
    proposed = positions([[], [1, 1], [2, 1]])
    assert proposed == {1: [], 2: [1], 3: [1, 2]}
    assert edited(proposed, {3: [], 1: [2]}) == {1: [2], 2: [1], 3: []}
    assert proposed == {1: [], 2: [1], 3: [1, 2]}, "the proposal itself is left as it was"


@pytest.mark.parametrize(
    ("text", "edits"),
    [
        ("3:1,2;4:", {3: [1, 2], 4: []}),
        ("#3: #2, 1\n4:", {3: [1, 2], 4: []}),
        ("", {}),
        (" ; 2:1 ;", {2: [1]}),
    ],
)
def test_parse_edits(text: str, edits: dict[int, list[int]]) -> None:
    assert parse_edits(text) == edits


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("3=1", "expected ISSUE:DEPENDENCIES like 3:1,2 — got '3=1'"),
        ("3:a", "expected issue numbers like 3:1,2 — got '3:a'"),
        ("x:1", "expected issue numbers like 3:1,2 — got 'x:1'"),
        ("3:1;3:2", "#3 is named twice"),
    ],
)
def test_parse_edits_refuses_with_one_line(text: str, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_edits(text)
    assert str(caught.value) == message


# --- which issues may start -------------------------------------------------------------


def test_an_issue_is_ready_only_when_every_dependency_is_closed() -> None:
    issues = [issue(1), issue(2), issue(3, 1), issue(4, 1, 2)]
    assert ready_issues(issues) == [1, 2]
    issues = [issue(1, closed=True), issue(2), issue(3, 1), issue(4, 1, 2)]
    assert ready_issues(issues) == [2, 3]
    issues = [issue(1, closed=True), issue(2, closed=True), issue(3, 1), issue(4, 1, 2)]
    assert ready_issues(issues) == [3, 4]


def test_waiting_issues_name_the_dependencies_still_open() -> None:
    found = readiness([issue(1, closed=True), issue(2), issue(3, 1, 2), issue(4, 3)])
    assert found.ready == [2]
    assert found.waiting == {3: [2], 4: [3]}
    assert found.stuck == {}


def test_closed_and_set_aside_issues_are_never_ready() -> None:
    issues = [issue(1, closed=True), issue(2, labels=(SET_ASIDE_LABEL,)), issue(3)]
    assert ready_issues(issues) == [3]


def test_a_dependency_set_aside_makes_its_dependents_stuck_transitively() -> None:
    issues = [
        issue(1, labels=(SET_ASIDE_LABEL,)),
        issue(2, 1),
        issue(3, 2),
        issue(4),
        issue(5, 4),
    ]
    found = readiness(issues)
    assert found.ready == [4]
    assert found.waiting == {5: [4]}
    assert found.stuck == {2: [1], 3: [2]}
    assert stuck_reason(2, [1], issues) == "issue #2 depends on #1, which is set aside"
    assert (
        stuck_reason(3, [2], issues)
        == "issue #3 depends on #2, which cannot start (its own dependencies are stuck)"
    )


def test_an_unknown_dependency_or_a_stored_cycle_is_stuck_never_a_deadlock() -> None:
    found = readiness([issue(1, 9), issue(2, 3), issue(3, 2), issue(4)])
    assert found.ready == [4]
    assert found.stuck == {1: [9], 2: [3], 3: [2]}
    assert (
        stuck_reason(1, [9], [issue(1, 9)])
        == "issue #1 depends on #9, which is no issue of the milestone"
    )


def test_every_open_issue_is_ready_waiting_or_stuck_and_something_is_ready() -> None:
    """No deadlock: when open issues are left and none is stuck, one of them is ready."""
    issues = [issue(n, *range(1, n)) for n in range(1, 8)]
    for closed in range(7):
        now = [i.model_copy(update={"state": "closed"}) if i.iid <= closed else i for i in issues]
        found = readiness(now)
        assert found.ready == [closed + 1]
        assert set(found.waiting) == set(range(closed + 2, 8))

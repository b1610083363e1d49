"""Every field a harness tool takes from the model has a maximum: over it, the tool
answers the model with one short error naming the field and the maximum (never the value
back), records nothing, and an honest retry in the same session is recorded."""

from __future__ import annotations

from typing import Any

import pytest

from agent.core.session import tools
from agent.core.session.tools import SessionReports, text_size
from agent.core.session.toolset import surface_for
from common.schemas.issues import ISSUES_PER_PROPOSAL, ITEM_CHARS, SUMMARY_CHARS

HUGE = "A" * 140_000


async def call(reports: SessionReports, name: str, args: dict[str, Any]) -> dict[str, Any]:
    (tool,) = [t for t in reports._tools() if t.name == name]
    result: dict[str, Any] = await tool.handler(args)
    return result


def text_of(result: dict[str, Any]) -> str:
    (text,) = [part["text"] for part in result["content"]]
    assert isinstance(text, str)
    return text


def issue(**fields: Any) -> dict[str, Any]:
    return {"title": "Add half", "summary": "half(x) is x / 2.", **fields}


async def test_a_140_kb_done_summary_is_refused_short_and_an_honest_retry_is_recorded() -> None:
    reports = SessionReports(expected_issue=1, surface=surface_for("coding"))

    refused = await call(reports, "report_issue_done", {"issue_iid": 1, "summary": HUGE})

    assert refused["is_error"] is True
    text = text_of(refused)
    assert text == (
        "invalid input for report_issue_done: summary: "
        f"String should have at most {tools.DONE_SUMMARY_CHARS} characters"
    )
    assert reports.done is None
    honest = await call(reports, "report_issue_done", {"issue_iid": 1, "summary": "Done."})
    assert "is_error" not in honest
    assert reports.done is not None and reports.done.summary == "Done."


@pytest.mark.parametrize(
    ("name", "args", "field", "maximum"),
    [
        (
            "report_issue_done",
            {"issue_iid": 1, "summary": "x" * (tools.DONE_SUMMARY_CHARS + 1)},
            "summary",
            tools.DONE_SUMMARY_CHARS,
        ),
        (
            "report_issue_done",
            {"issue_iid": 1, "summary": "ok", "tests_added": ["t"] * (tools.TESTS_ADDED + 1)},
            "tests_added",
            tools.TESTS_ADDED,
        ),
        (
            "report_issue_done",
            {"issue_iid": 1, "summary": "ok", "tests_added": ["t" * 301]},
            "tests_added.0",
            tools.TEST_NAME_CHARS,
        ),
        (
            "record_handoff",
            {"issue_iid": 1, "gotchas": ["g"] * (tools.HANDOFF_ITEMS + 1)},
            "gotchas",
            tools.HANDOFF_ITEMS,
        ),
        (
            "record_handoff",
            {"issue_iid": 1, "next_steps": ["n" * (ITEM_CHARS + 1)]},
            "next_steps.0",
            ITEM_CHARS,
        ),
    ],
)
async def test_each_field_over_its_maximum_is_named_with_the_maximum(
    name: str, args: dict[str, Any], field: str, maximum: int
) -> None:
    reports = SessionReports(expected_issue=1, surface=surface_for("coding"))

    result = await call(reports, name, args)

    assert result["is_error"] is True
    text = text_of(result)
    assert text.startswith(f"invalid input for {name}: {field}: ")
    assert str(maximum) in text
    assert len(text) < 200
    assert reports.done is None and reports.handoff is None


@pytest.mark.parametrize(
    ("fields", "where", "maximum"),
    [
        ({"title": "t" * 256}, "issues.0.title", 255),
        ({"summary": "s" * (SUMMARY_CHARS + 1)}, "issues.0.summary", SUMMARY_CHARS),
        ({"test_criteria": ["c"] * 31}, "issues.0.test_criteria", 30),
        ({"requirement_details": ["r" * (ITEM_CHARS + 1)]}, "issues.0.requirement_details.0", 0),
        ({"depends_on": list(range(1, 60))}, "issues.0.depends_on", ISSUES_PER_PROPOSAL),
    ],
)
async def test_a_proposed_issue_is_bounded_field_by_field(
    fields: dict[str, Any], where: str, maximum: int
) -> None:
    reports = SessionReports(surface=surface_for("initializer"))

    result = await call(reports, "propose_issues", {"issues": [issue(**fields)]})

    assert result["is_error"] is True
    text = text_of(result)
    assert text.startswith(f"invalid input for propose_issues: {where}: "), text
    assert str(maximum or ITEM_CHARS) in text
    assert reports.proposal is None


async def test_a_900_kb_proposal_is_refused_in_one_short_line_then_an_honest_one_is_recorded() -> (
    None
):
    reports = SessionReports(surface=surface_for("initializer"))
    hostile = [issue(title=f"Issue {n}", summary="x" * 3_000) for n in range(300)]
    assert len(str(hostile)) > 900_000

    refused = await call(reports, "propose_issues", {"issues": hostile})

    assert refused["is_error"] is True
    assert text_of(refused) == (
        "invalid input for propose_issues: issues: "
        f"List should have at most {ISSUES_PER_PROPOSAL} items after validation, not 300"
    )
    assert reports.proposal is None
    honest = await call(reports, "propose_issues", {"issues": [issue()]})
    assert "is_error" not in honest
    assert reports.proposal is not None
    assert [i.title for i in reports.proposal.issues] == ["Add half"]
    assert type(reports.proposal.issues[0]).__name__ == "IssueDraft"  # kept plain


async def test_a_proposal_whose_every_field_fits_is_still_bounded_whole() -> None:
    reports = SessionReports(surface=surface_for("initializer"))
    details = ["d" * 900] * 30
    bulky = [issue(title=f"I{n}", requirement_details=details) for n in range(ISSUES_PER_PROPOSAL)]

    text = text_of(await call(reports, "propose_issues", {"issues": bulky}))

    assert text.startswith("invalid input for propose_issues: the proposal holds ")
    assert text.endswith(f"at most {tools.PROPOSAL_CHARS}: propose fewer or shorter issues")
    assert reports.proposal is None


async def test_too_many_issues_within_the_size_are_refused_by_count() -> None:
    reports = SessionReports(surface=surface_for("initializer"))
    many = [issue(title=f"I{n}", summary="s") for n in range(ISSUES_PER_PROPOSAL + 1)]

    text = text_of(await call(reports, "propose_issues", {"issues": many}))

    assert text.startswith("invalid input for propose_issues: issues: ")
    assert str(ISSUES_PER_PROPOSAL) in text


async def test_many_problems_are_counted_not_listed_and_keys_are_cut() -> None:
    reports = SessionReports(surface=surface_for("initializer"))
    bad = [issue(title="", **{"k" * 5_000: 1}) for _ in range(10)]

    text = text_of(await call(reports, "propose_issues", {"issues": bad}))

    assert text.endswith("; and 17 more problem(s)"), text
    assert "k" * 61 not in text
    assert len(text) < 400


async def test_unknown_sections_are_named_short() -> None:
    reports = SessionReports(surface=surface_for("initializer"), spec_sections=["Context"])
    proposal = [issue(spec_sections=["y" * 300, "z"]) for _ in range(10)]

    text = text_of(await call(reports, "propose_issues", {"issues": proposal}))

    assert "y" * 61 not in text
    assert text.count("issue ") == 3 and "and 7 more issue(s)" in text


def test_the_tools_schema_tells_the_model_the_maxima() -> None:
    schema = tools.ProposalInput.model_json_schema()
    proposed = schema["$defs"]["ProposedIssue"]["properties"]
    assert proposed["summary"]["maxLength"] == SUMMARY_CHARS
    assert schema["properties"]["issues"]["maxItems"] == ISSUES_PER_PROPOSAL
    done = tools.DoneReport.model_json_schema()["properties"]
    assert done["summary"]["maxLength"] == tools.DONE_SUMMARY_CHARS


@pytest.mark.parametrize(
    ("value", "size"),
    [
        ("abc", 3),
        ({"ab": ["c", {"d": "ef"}], "g": 1}, 7),
        ([[[[[[["x"]]]]]]], 1),
        (None, 0),
    ],
)
def test_text_size_counts_every_string_and_key(value: object, size: int) -> None:
    assert text_size(value) == size


def test_text_size_takes_a_deep_nest_without_recursion() -> None:
    deep: list[Any] = ["x"]
    for _ in range(100_000):
        deep = [deep]
    assert text_size(deep) == 1

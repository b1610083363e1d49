"""``propose_issues`` keeps to the spec's sections: a name the harness did not give is
refused back to the model (which may mend it), and the names recorded are the harness's."""

from __future__ import annotations

from typing import Any

from agent.core.session.tools import SessionReports
from agent.core.session.toolset import surface_for

SECTIONS = ["Context", "Feature 1: slugify", "Feature 3: truncate"]


def issue(title: str, *sections: str) -> dict[str, Any]:
    return {"title": title, "summary": "s", "spec_sections": list(sections)}


async def propose(reports: SessionReports, *issues: dict[str, Any]) -> dict[str, Any]:
    (tool,) = [t for t in reports._tools() if t.name == "propose_issues"]
    result: dict[str, Any] = await tool.handler({"issues": list(issues)})
    return result


async def test_known_names_are_recorded_in_the_harnesss_spelling() -> None:
    reports = SessionReports(surface=surface_for("initializer"), spec_sections=SECTIONS)

    result = await propose(
        reports, issue("Add slugify", "context", "Feature 1: `slugify`", "Context")
    )

    assert "is_error" not in result
    assert reports.proposal is not None
    (recorded,) = reports.proposal.issues
    assert recorded.spec_sections == ["Context", "Feature 1: slugify"]


async def test_an_unknown_name_is_refused_with_the_known_ones() -> None:
    reports = SessionReports(surface=surface_for("initializer"), spec_sections=SECTIONS)

    result = await propose(
        reports, issue("Add slugify", "Feature 1: slugify"), issue("Add parse", "Feature 2")
    )

    assert result["is_error"] is True
    (text,) = [part["text"] for part in result["content"]]
    assert text == (
        "invalid input for propose_issues: unknown spec section(s): issue 2: 'Feature 2'. "
        "The spec's sections are: Context; Feature 1: slugify; Feature 3: truncate"
    )
    assert reports.proposal is None, "nothing recorded: the session is not done"

    mended = await propose(reports, issue("Add truncate", "Feature 3: truncate"))
    assert "is_error" not in mended and reports.proposal is not None


async def test_an_issue_without_sections_is_accepted_and_covers_nothing() -> None:
    reports = SessionReports(surface=surface_for("initializer"), spec_sections=SECTIONS)
    assert "is_error" not in await propose(reports, issue("Tidy up"))
    assert reports.proposal is not None and reports.proposal.issues[0].spec_sections == []


async def test_without_the_specs_sections_names_are_not_checked() -> None:
    """Other sessions (and tests that build reports bare) do not know the spec."""
    reports = SessionReports(surface=surface_for("initializer"))
    assert "is_error" not in await propose(reports, issue("Add x", "Anything"))

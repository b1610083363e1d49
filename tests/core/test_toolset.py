"""The per-kind tool surfaces and the pure comparison with what the CLI offers."""

from __future__ import annotations

import re

import pytest

from agent.assets import asset_path
from agent.core.session.tools import SessionReports
from agent.core.session.toolset import (
    FULL_SURFACE,
    SURFACES,
    ToolSurface,
    check_offered,
    missing_tools,
    surface_for,
    unexpected_tools,
)
from common.errors import SessionError

PROMPTS = asset_path("prompts")
NOT_IN_THE_CLI = {"MultiEdit", "TodoWrite"}


def test_missing_tools_keeps_the_order_they_were_wanted_in() -> None:
    wanted = ["Read", "MultiEdit", "Bash", "TodoWrite"]
    assert missing_tools(wanted, ["Bash", "Read"]) == ["MultiEdit", "TodoWrite"]
    assert missing_tools(wanted[:1], ["Read", "Bash"]) == []


def test_unexpected_tools_lists_what_nobody_asked_for() -> None:
    offered = ["Read", "ToolSearch", "Agent"]
    assert unexpected_tools(["Read"], offered) == ["ToolSearch", "Agent"]
    assert unexpected_tools(offered, offered) == []


def test_a_tool_the_cli_lacks_fails_the_session_naming_it() -> None:
    with pytest.raises(SessionError) as caught:
        check_offered("coding #1", ["Read", "MultiEdit"], ["Read", "Bash"])
    message = str(caught.value)
    assert "session coding #1" in message
    assert "does not offer MultiEdit" in message
    assert "\n" not in message


def test_an_extra_tool_offered_fails_the_session_naming_it() -> None:
    with pytest.raises(SessionError, match="did not ask for: ToolSearch"):
        check_offered("mr", ["Read"], ["Read", "ToolSearch"])


def test_the_exact_set_in_any_order_passes() -> None:
    check_offered(
        "x", ["Read", "mcp__harness__enrich_issue"], ["mcp__harness__enrich_issue", "Read"]
    )


def test_every_prompt_template_has_a_surface_with_the_harness_tools_it_names() -> None:
    templates = {p.stem for p in PROMPTS.glob("*.md")} - {"system"}
    assert templates == set(SURFACES)
    for template in templates:
        named = set(re.findall(r"mcp__harness__\w+", (PROMPTS / f"{template}.md").read_text()))
        assert named, template
        assert named <= set(surface_for(template).harness_names()), template


def test_sessions_that_only_read_cannot_write_or_run_commands() -> None:
    for kind in ("initializer", "enrichment"):
        assert not {"Write", "Edit", "Bash"} & set(surface_for(kind).builtin)
    assert {"Write", "Edit", "Bash"} <= set(surface_for("coding").builtin)


def test_no_surface_names_a_tool_this_cli_does_not_have() -> None:
    for surface in [*SURFACES.values(), FULL_SURFACE]:
        assert not NOT_IN_THE_CLI & set(surface.names())


def test_an_unknown_kind_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(SessionError, match=r"no tool set for session kind 'review'.*coding"):
        surface_for("review")


def test_reports_serve_only_the_surface_s_harness_tools() -> None:
    reports = SessionReports(surface=ToolSurface(("Read",), ("enrich_issue",)))
    assert reports.tool_names() == ["mcp__harness__enrich_issue"]
    assert [t.name for t in reports._tools()] == ["enrich_issue"]
    everything = SessionReports()
    assert len(everything.tool_names()) == len(FULL_SURFACE.harness) == 5

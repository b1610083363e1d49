"""MCP servers of the user's choice in a session: its tool surface, the hooks' judgement,
the CLI's configuration and the hosts the sandbox may reach for them (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.core.run.network_access import allowed_hosts, hosts_by_kind, unseen_paths
from agent.core.session.hooks import ToolPolicy
from agent.core.session.mcp_servers import failed_servers, sdk_config
from agent.core.session.toolset import check_offered, surface_for, unexpected_tools, with_servers
from agent.core.session.trace_session import kind_of
from common.errors import SessionError
from common.schemas.agent_state import AgentState
from common.schemas.mcp_server import McpServer
from common.schemas.spec import AgentSpec

NOTES = McpServer(name="notes", command=["python3", "notes.py"], env={"MODE": "x"})
DOCS = McpServer(
    name="docs",
    url="https://docs.example/mcp",
    sessions=("enrichment", "coding"),
    hosts=("cdn.example:443",),
)


def test_a_kind_gets_only_its_servers_and_keeps_its_kind() -> None:
    coding = with_servers("coding", surface_for("coding"), (NOTES, DOCS))
    assert coding.servers == (NOTES, DOCS)
    assert coding.names() == surface_for("coding").names()
    assert kind_of(coding) == "coding"
    mr = with_servers("mr", surface_for("mr"), (NOTES, DOCS))
    assert mr == surface_for("mr")


def test_each_server_is_allowed_whole_since_only_it_knows_its_tools() -> None:
    surface = with_servers("coding", surface_for("coding"), (NOTES,))
    assert surface.allowed() == [*surface.names(), "mcp__notes"]
    assert surface.server_prefixes() == ["mcp__notes__"]


def test_a_given_servers_tools_are_expected_and_others_are_not() -> None:
    wanted = ["Read", "mcp__harness__report_issue_done"]
    offered = [*wanted, "mcp__notes__write_note", "mcp__notes__read_notes", "mcp__other__x"]
    assert unexpected_tools(wanted, offered, ["mcp__notes__"]) == ["mcp__other__x"]
    check_offered("coding #1", wanted, offered[:-1], ["mcp__notes__"])
    with pytest.raises(SessionError, match="did not ask for: mcp__other__x"):
        check_offered("coding #1", wanted, offered, ["mcp__notes__"])


def test_a_server_with_no_tool_fails_nothing() -> None:
    check_offered("coding #1", ["Read"], ["Read"], ["mcp__notes__"])


@pytest.mark.parametrize(
    ("tool", "refused"),
    [
        ("mcp__harness__report_issue_done", False),
        ("mcp__notes__write_note", False),
        ("mcp__notes__a__b", False),
        ("mcp__docs__search", True),
        ("mcp__notesx__write_note", True),
        ("mcp__", True),
    ],
)
def test_the_hooks_run_a_given_servers_tools_and_refuse_any_other_servers(
    tmp_path: Path, tool: str, refused: bool
) -> None:
    policy = ToolPolicy(tmp_path, mcp_servers=frozenset({"notes"}))
    reason = policy.check(tool, {"file_path": "/etc/shadow"})
    assert (reason is not None) == refused
    if refused:
        assert reason == f"{tool} is not a tool of an MCP server this session was given"


def test_the_cli_gets_a_stdio_server_as_argv_and_env_and_a_url_as_http() -> None:
    assert sdk_config(NOTES) == {
        "type": "stdio",
        "command": "python3",
        "args": ["notes.py"],
        "env": {"MODE": "x"},
    }
    assert sdk_config(DOCS) == {"type": "http", "url": "https://docs.example/mcp"}


def test_a_server_is_described_in_one_line_for_the_person() -> None:
    assert NOTES.summary() == (
        "MCP server notes runs `python3 notes.py` in the sandbox, for coding sessions; "
        "while they run, the sandbox may reach nothing outside it"
    )
    assert DOCS.summary() == (
        "MCP server docs is reached at https://docs.example/mcp, for enrichment, coding "
        "sessions; while they run, the sandbox may reach cdn.example:443, docs.example:443"
    )


def test_servers_the_cli_could_not_start_are_named() -> None:
    init = [
        {"name": "harness", "status": "connected"},
        {"name": "notes", "status": "failed"},
        "garbage",
    ]
    assert failed_servers(init) == ["notes (failed)"]


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://docs.example/mcp", "docs.example:443"),
        ("http://Docs.Example/mcp", "docs.example:80"),
        ("http://127.0.0.1:8931/mcp", "127.0.0.1:8931"),
        ("http://[::1]:9000/", "[::1]:9000"),
    ],
)
def test_a_url_servers_host_is_what_the_sandbox_must_reach(url: str, host: str) -> None:
    assert McpServer(name="s", url=url).reachable() == [host]


def test_the_allowlist_is_the_spec_and_the_approved_file(tmp_path: Path) -> None:
    spec = AgentSpec(
        spec_file=tmp_path / "s.md",
        project_dir=tmp_path,
        target_branch="main",
        sandbox_hosts=["pypi.org:443"],
    )
    state = AgentState(repo_sandbox_hosts=["files.pythonhosted.org:443", "pypi.org:443"])
    assert allowed_hosts(spec, state) == ("pypi.org:443", "files.pythonhosted.org:443")


def test_a_servers_hosts_are_its_session_kinds_only() -> None:
    notes = McpServer(name="notes", command=["x"], hosts=("notes.example:443",))
    assert hosts_by_kind((notes, DOCS)) == {
        "coding": ("notes.example:443", "cdn.example:443", "docs.example:443"),
        "enrichment": ("cdn.example:443", "docs.example:443"),
    }
    assert hosts_by_kind((NOTES,)) == {}


def test_a_stdio_servers_program_outside_the_sandbox_is_named(tmp_path: Path) -> None:
    outside = McpServer(
        name="home",
        command=["/root/.local/bin/server", "--data", f"{tmp_path}/data", "/usr/share/x", "rel/p"],
    )
    visible = [Path("/usr"), Path("/opt")]
    assert unseen_paths(outside, tmp_path, visible) == ["/root/.local/bin/server"]
    assert unseen_paths(NOTES, tmp_path, visible) == []  # a bare name and a relative path
    assert unseen_paths(DOCS, tmp_path, visible) == []  # a URL: nothing runs in the sandbox
